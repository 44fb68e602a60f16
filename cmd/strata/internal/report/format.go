package report

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/strata-hpc/strata/cmd/strata/internal/term"
)

// Field is one selectable report column. Name is what --format matches
// (case-insensitively); Header is printed and carries the unit.
type Field[R any] struct {
	Name   string
	Header string
	Value  func(R) string
}

// OutputMode is how a report is printed.
type OutputMode struct {
	Parsable bool   // -P: '|'-separated, no padding, no trailing '|'
	CSV      bool   // --csv: RFC 4180 comma-separated values, quoted where needed
	Trailing bool   // -p: like Parsable, each line ending in '|'
	NoHeader bool   // -n
	JSON     bool   // --json
	Format   string // --format=Field[%[-]width],...; "help" lists the fields
	Units    string // --units: the energy columns' unit (J, Wh, kWh, MWh); "" kWh
	Time     string // -t: GPU time as hours, minutes, seconds, percent or hours/percent (sreport)
}

// Selected is a field with the width and alignment --format asked for.
type Selected[R any] struct {
	Field[R]
	width int  // 0: fit the content
	left  bool // "%-N": left-justified
}

// SelectFields resolves --format against the available fields; an empty
// format selects defaults (names of fields, in order).
func SelectFields[R any](all []Field[R], format string, defaults []string) ([]Selected[R], error) {
	specs := defaults
	if strings.TrimSpace(format) != "" {
		specs = strings.Split(format, ",")
	}
	var out []Selected[R]
	for _, spec := range specs {
		spec = strings.TrimSpace(spec)
		if spec == "" {
			continue
		}
		name, width, _ := strings.Cut(spec, "%")
		s := Selected[R]{}
		if width != "" {
			s.left = strings.HasPrefix(width, "-")
			n, err := strconv.Atoi(strings.TrimPrefix(width, "-"))
			if err != nil || n <= 0 {
				return nil, fmt.Errorf("parse --format %q: width %q is not a positive number", spec, width)
			}
			s.width = n
		}
		f, ok := LookupField(all, name)
		if !ok {
			return nil, fmt.Errorf("parse --format: unknown field %q (fields: %s)", name, fieldNames(all))
		}
		s.Field = f
		out = append(out, s)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("parse --format %q: no fields", format)
	}
	return out, nil
}

// LookupField finds a field by name (case-insensitively, sacct aliases
// included).
func LookupField[R any](all []Field[R], name string) (Field[R], bool) {
	for _, f := range all {
		if strings.EqualFold(f.Name, name) {
			return f, true
		}
	}
	if alias, ok := fieldAliases[strings.ToLower(name)]; ok {
		return LookupField(all, alias)
	}
	return Field[R]{}, false
}

// fieldAliases accepts sacct's field names where ours differ.
var fieldAliases = map[string]string{"jobid": "Job", "jobidraw": "Job", "consumedenergy": "EnergyRaw", "consumedenergyraw": "EnergyRaw"}

func fieldNames[R any](all []Field[R]) string {
	names := make([]string, len(all))
	for i, f := range all {
		names[i] = f.Name
	}
	return strings.Join(names, ",")
}

// WriteTable prints rows the way sacct does: a right-justified table with a
// dashed rule under the header (or, with Parsable, '|'-separated values).
// A column with an explicit width truncates longer values, ending them in '+'.
// Values come from users (job names): a line break never starts a row (it
// is written as \n), '|' inside a -P value is written as '/', and a CSV
// value that a spreadsheet would run as a formula gets a leading quote
// (term.CSVCell).
func WriteTable[R any](w io.Writer, cols []Selected[R], rows []R, m OutputMode) error {
	cells := make([][]string, 0, len(rows)+1)
	if !m.NoHeader {
		hdr := make([]string, len(cols))
		for i, c := range cols {
			hdr[i] = c.Header
		}
		cells = append(cells, hdr)
	}
	for _, r := range rows {
		line := make([]string, len(cols))
		for i, c := range cols {
			line[i] = c.Value(r)
		}
		cells = append(cells, line)
	}
	var b strings.Builder
	first := 0 // the first row of values (after the header)
	if !m.NoHeader {
		first = 1
	}
	if m.CSV {
		for _, line := range cells[first:] {
			for i, v := range line {
				line[i] = term.CSVCell(v)
			}
		}
		cw := csv.NewWriter(w)
		if err := cw.WriteAll(cells); err != nil {
			return fmt.Errorf("write csv: %w", err)
		}
		return nil
	}
	if m.Parsable || m.Trailing {
		for _, line := range cells {
			for i, v := range line {
				line[i] = term.ParsableCell(v, '|')
			}
			b.WriteString(strings.Join(line, "|"))
			if m.Trailing {
				b.WriteByte('|')
			}
			b.WriteByte('\n')
		}
		_, err := io.WriteString(w, b.String())
		return err
	}
	for _, line := range cells {
		for i, v := range line {
			line[i] = term.OneLine(v)
		}
	}
	widths := columnWidths(cols, cells)
	for li, line := range cells {
		for i, v := range line {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(pad(fit(v, widths[i]), widths[i], cols[i].left))
		}
		b.WriteByte('\n')
		if li == 0 && !m.NoHeader {
			for i := range cols {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(strings.Repeat("-", widths[i]))
			}
			b.WriteByte('\n')
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

func columnWidths[R any](cols []Selected[R], cells [][]string) []int {
	widths := make([]int, len(cols))
	for i, c := range cols {
		if c.width > 0 {
			widths[i] = c.width
			continue
		}
		for _, line := range cells {
			widths[i] = max(widths[i], utf8.RuneCountInString(line[i]))
		}
	}
	return widths
}

// fit truncates v to width runes, marking the cut with '+' as sacct does.
func fit(v string, width int) string {
	if utf8.RuneCountInString(v) <= width {
		return v
	}
	r := []rune(v)
	return string(r[:width-1]) + "+"
}

func pad(v string, width int, left bool) string {
	n := width - utf8.RuneCountInString(v)
	if n <= 0 {
		return v
	}
	if left {
		return v + strings.Repeat(" ", n)
	}
	return strings.Repeat(" ", n) + v
}

// WriteJSON prints v as indented JSON.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("write json: %w", err)
	}
	return nil
}

// FmtFloat prints a number with a fixed number of decimals, rounded as
// Round does (half away from zero), so a table shows what rounding the
// JSON's value gives: 0.125 GPU-hours print as 0.13, not 0.12.
func FmtFloat(v float64, decimals int) string {
	return strconv.FormatFloat(Round(v, decimals), 'f', decimals, 64)
}
