package term

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestCells (issue 23.9): job names reach exports neutralised.
func TestCells(t *testing.T) {
	tests := []struct {
		in                    string
		oneLine, parsable, cs string
	}{
		{"resnet50", "resnet50", "resnet50", "resnet50"},
		{"=HYPERLINK(\"http://x\")", "=HYPERLINK(\"http://x\")", "=HYPERLINK(\"http://x\")", "'=HYPERLINK(\"http://x\")"},
		{"+cmd|' /C calc'!A0", "+cmd|' /C calc'!A0", "+cmd/' /C calc'!A0", "'+cmd|' /C calc'!A0"},
		{"-2+3", "-2+3", "-2+3", "'-2+3"},
		{"@SUM(A1)", "@SUM(A1)", "@SUM(A1)", "'@SUM(A1)"},
		{"\tx", "\tx", "\tx", "'\tx"},
		{"\rx", `\rx`, `\rx`, "'\rx"},
		{"-1.5", "-1.5", "-1.5", "-1.5"},
		{"a\n999|fake|row", `a\n999|fake|row`, `a\n999/fake/row`, "a\n999|fake|row"},
		{"a\r\nb\u2028c", `a\r\nb\u2028c`, `a\r\nb\u2028c`, "a\r\nb\u2028c"},
	}
	for _, tt := range tests {
		got := [3]string{OneLine(tt.in), ParsableCell(tt.in, '|'), CSVCell(tt.in)}
		if diff := cmp.Diff([3]string{tt.oneLine, tt.parsable, tt.cs}, got); diff != "" {
			t.Errorf("%q: OneLine, ParsableCell, CSVCell (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		0: "00:00:00", 1500 * time.Millisecond: "00:00:02", 90 * time.Minute: "01:30:00",
		26*time.Hour + 3*time.Second: "1-02:00:03", -time.Second: "00:00:00", 110*time.Hour + 57*time.Minute: "4-14:57:00",
	} {
		if got := Duration(d); got != want {
			t.Errorf("Duration(%v) = %q, want %q", d, got, want)
		}
	}
}
