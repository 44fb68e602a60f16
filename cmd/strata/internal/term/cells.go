package term

import (
	"strconv"
	"strings"
)

// lineBreaks writes the characters that end or forge a line visibly.
var lineBreaks = strings.NewReplacer("\r\n", `\r\n`, "\n", `\n`, "\r", `\r`, "\v", `\v`, "\f", `\f`, "\u0085", `\u0085`, "\u2028", `\u2028`, "\u2029", `\u2029`)

// OneLine returns s on one line: line breaks (CR, LF, VT, FF, NEL, LS, PS)
// are written as visible escapes (\n), so a job name cannot forge rows of
// a table or of -P output.
func OneLine(s string) string {
	if !strings.ContainsAny(s, "\r\n\v\f\u0085\u2028\u2029") {
		return s
	}
	return lineBreaks.Replace(s)
}

// ParsableCell returns s as one field of sep-separated output (sacct -P):
// on one line (OneLine), and sep inside it written as '/'.
func ParsableCell(s string, sep byte) string {
	s = OneLine(s)
	if strings.IndexByte(s, sep) < 0 {
		return s
	}
	return strings.ReplaceAll(s, string(sep), "/")
}

// CSVCell neutralises a spreadsheet formula: a value starting with = + - @,
// TAB or CR gets a leading single quote (OWASP's convention, which
// spreadsheets show as text), unless it is a plain number such as -1.5.
func CSVCell(s string) string {
	if s == "" || !strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return s
	}
	if _, err := strconv.ParseFloat(s, 64); err == nil {
		return s
	}
	return "'" + s
}
