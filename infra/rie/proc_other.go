//go:build !linux

package rie

import "os/exec"

// The emulator runs on Linux only (Binary refuses elsewhere); these keep the package building.
func setProcessGroup(*exec.Cmd) {}

func killGroup(cmd *exec.Cmd) { _ = cmd.Process.Kill() }
