// Package term keeps what users control (job names, comments, hint errors)
// from driving the admin's terminal: control characters are shown, not
// sent. A job named "\x1b]0;...\x07" would otherwise retitle the window,
// and cursor sequences could hide or fake lines of `strata queue`.
package term

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// Safe returns s with every control character except tab and newline
// written as a visible escape (\x1b, \x07, \u009b): C0, DEL and C1 codes,
// and invalid UTF-8 bytes.
func Safe(s string) string {
	if clean(s) {
		return s
	}
	out := make([]byte, 0, len(s)+16)
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = fmt.Appendf(out, `\x%02x`, s[i])
		case r == '\t' || r == '\n':
			out = append(out, byte(r))
		case r < 0x20 || r == 0x7f:
			out = fmt.Appendf(out, `\x%02x`, r)
		case r >= 0x80 && r < 0xa0:
			out = fmt.Appendf(out, `\u%04x`, r)
		default:
			out = append(out, s[i:i+size]...)
		}
		i += size
	}
	return string(out)
}

func clean(s string) bool {
	for i := 0; i < len(s); i++ {
		b := s[i]
		if b < 0x20 && b != '\t' && b != '\n' || b == 0x7f || b >= 0x80 {
			if b >= 0x80 {
				return !hasC1OrInvalid(s[i:])
			}
			return false
		}
	}
	return true
}

func hasC1OrInvalid(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 || r < 0x20 && r != '\t' && r != '\n' || r == 0x7f || r >= 0x80 && r < 0xa0 {
			return true
		}
		i += size
	}
	return false
}

// Writer returns w with Safe applied to everything written. JSON output
// passes unchanged (encoders already escape control characters).
func Writer(w io.Writer) io.Writer { return safeWriter{w} }

type safeWriter struct{ w io.Writer }

// Unwrap returns the writer under Writer (w itself when it is not one), for
// Strata's own terminal output that must reach it as is (a progress bar's
// carriage returns).
func Unwrap(w io.Writer) io.Writer {
	if s, ok := w.(safeWriter); ok {
		return s.w
	}
	return w
}

func (s safeWriter) Write(p []byte) (int, error) {
	if _, err := io.WriteString(s.w, Safe(string(p))); err != nil {
		return 0, err
	}
	return len(p), nil
}
