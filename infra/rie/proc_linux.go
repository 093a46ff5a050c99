package rie

import (
	"os/exec"
	"syscall"
)

// setProcessGroup puts the emulator in a process group of its own, so killGroup ends the bootstrap it
// started too, and has the kernel kill it when the process that started it dies (a test binary
// stopped by Ctrl-C).
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// killGroup kills the emulator's process group: the emulator and the bootstrap it started.
func killGroup(cmd *exec.Cmd) {
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
}
