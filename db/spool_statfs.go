//go:build linux || darwin || freebsd

package db

import "syscall"

// freeBytes returns the space an unprivileged writer may still use on the
// file system holding dir; ok is false when it cannot be read.
func freeBytes(dir string) (int64, bool) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, false
	}
	return int64(st.Bavail) * int64(st.Bsize), true
}
