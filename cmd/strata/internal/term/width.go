package term

import "os"

// Width is the width in columns of the terminal f writes to, and false when
// f is not a terminal (a pipe or a file: output is then never cut to fit).
func Width(f *os.File) (int, bool) {
	if f == nil {
		return 0, false
	}
	return width(f.Fd())
}
