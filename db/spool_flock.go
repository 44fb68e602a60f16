//go:build linux || darwin || freebsd

package db

import (
	"errors"
	"os"
	"syscall"
)

// tryFlock takes an exclusive flock on f without waiting; false when
// another open file (another process) holds it.
func tryFlock(f *os.File) (bool, error) {
	err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		return false, nil
	}
	return err == nil, err
}
