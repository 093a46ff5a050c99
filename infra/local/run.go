package main

import (
	"fmt"
	"os"
)

func runServer(args []string) int {
	fmt.Fprintln(os.Stderr, "run: not implemented yet")
	return 1
}
