//go:build unix

package secretfile

import (
	"os"
	"syscall"
)

// ownerOf is the file's owner uid; false where the platform does not say.
func ownerOf(st os.FileInfo) (int, bool) {
	s, ok := st.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, false
	}
	return int(s.Uid), true
}
