//go:build unix && !linux

package localstack

import "syscall"

// sysProcAttr puts an emulator in a process group of its own, so Stop can end everything it started.
// Outside Linux nothing kills it when its parent dies: callers stop it from their signal handling.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
