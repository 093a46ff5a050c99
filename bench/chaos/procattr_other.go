//go:build !linux

package main

import "syscall"

// sysProcAttr: only Linux can have an API process killed with the run; elsewhere close stops them.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{}
}
