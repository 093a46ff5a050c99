package localstack

import "syscall"

// sysProcAttr puts an emulator in a process group of its own, so Stop can end everything it started,
// and has the kernel kill it when the process that started it dies, even by SIGKILL or an unhandled
// SIGINT (as a `go test` binary does on Ctrl-C).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
