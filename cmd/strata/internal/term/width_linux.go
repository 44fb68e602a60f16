package term

import (
	"syscall"
	"unsafe"
)

// width asks the terminal driver for the window size of fd (TIOCGWINSZ).
func width(fd uintptr) (int, bool) {
	var ws struct{ Row, Col, X, Y uint16 }
	if _, _, errno := syscall.Syscall(syscall.SYS_IOCTL, fd, syscall.TIOCGWINSZ, uintptr(unsafe.Pointer(&ws))); errno != 0 {
		return 0, false
	}
	return int(ws.Col), true
}
