package main

import "syscall"

// sysProcAttr has the kernel kill an API process when the run dies, whatever the cause, so no process
// outlives it.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
