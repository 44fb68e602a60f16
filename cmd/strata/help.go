package main

import (
	"bytes"
	"io"
	"os"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
)

// helpColumns is the width help is wrapped to when it does not go to a
// terminal; on a terminal it is the terminal's width, at most
// maxHelpColumns (long flag usages made lines of ~200 columns).
const (
	helpColumns    = 100
	maxHelpColumns = 120
	minHelpColumns = 60
)

// helpWidth is the width of help written to w.
func helpWidth(w io.Writer) int {
	if f, ok := term.Unwrap(w).(*os.File); ok {
		if cols, tty := term.Width(f); tty && cols > 0 {
			return max(minHelpColumns, min(cols, maxHelpColumns))
		}
	}
	return helpColumns
}

// setHelpPrinter makes urfave/cli's help fit width columns.
func setHelpPrinter(width int) {
	cli.HelpPrinter = func(w io.Writer, templ string, data any) {
		var b bytes.Buffer
		cli.HelpPrinterCustom(&b, templ, data, nil)
		io.WriteString(w, wrapHelp(b.String(), width))
	}
}

// usageColumn finds where a flag's or a command's description starts: after
// the names and two or more spaces.
var usageColumn = regexp.MustCompile(`^(\s+\S.*?\s{2,})\S`)

// wrapHelp wraps every line longer than width at spaces; continuation
// lines start under the description, or 4 spaces in when the names take
// more than half the width (the description then starts below them).
func wrapHelp(text string, width int) string {
	var out strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if utf8.RuneCountInString(line) <= width {
			out.WriteString(line + "\n")
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		prefix, rest, col := line[:indent], line[indent:], indent+4
		if m := usageColumn.FindStringSubmatch(line); m != nil {
			prefix, rest = m[1], line[len(m[1]):]
			if c := utf8.RuneCountInString(m[1]); c <= width/2 {
				col = c
			} else { // long names: the description goes under them
				out.WriteString(strings.TrimRight(prefix, " ") + "\n")
				prefix = strings.Repeat(" ", col)
			}
		}
		cur, n := prefix, utf8.RuneCountInString(prefix)
		first := true
		for _, word := range strings.Fields(rest) {
			wl := utf8.RuneCountInString(word)
			if !first && n+1+wl > width {
				out.WriteString(strings.TrimRight(cur, " ") + "\n")
				cur, n, first = strings.Repeat(" ", col), col, true
			}
			if !first {
				cur += " "
				n++
			}
			cur += word
			n += wl
			first = false
		}
		out.WriteString(cur + "\n")
	}
	return strings.TrimSuffix(out.String(), "\n")
}
