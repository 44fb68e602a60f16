package main

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// placeholder is the only text a flag's usage may put in backticks:
// urfave/cli shows it as the flag's value placeholder (--plot DIR).
var placeholder = regexp.MustCompile("^[A-Z][A-Z0-9_=:,]*$")

// TestFlagUsagesHaveNoAccidentalPlaceholders (issue 26.8): urfave/cli turns
// the first backticked text of a usage into the value placeholder, so
// `scontrol show burst` made help print "--slurm-bb-pool scontrol show
// burst". Backticks are for deliberate placeholders only.
func TestFlagUsagesHaveNoAccidentalPlaceholders(t *testing.T) {
	var bad []string
	var walk func(path string, flags []cli.Flag, cmds []*cli.Command)
	walk = func(path string, flags []cli.Flag, cmds []*cli.Command) {
		for _, f := range flags {
			df, ok := f.(cli.DocGenerationFlag)
			if !ok {
				continue
			}
			parts := strings.Split(df.GetUsage(), "`")
			for i := 1; i < len(parts); i += 2 {
				if !placeholder.MatchString(parts[i]) {
					bad = append(bad, path+" --"+f.Names()[0]+": `"+parts[i]+"`")
				}
			}
		}
		for _, c := range cmds {
			walk(path+" "+c.Name, c.Flags, c.Subcommands)
		}
	}
	app := newApp(&bytes.Buffer{}, &bytes.Buffer{})
	walk("strata", app.Flags, app.Commands)
	if diff := cmp.Diff([]string(nil), bad); diff != "" {
		t.Errorf("backticked text that is no placeholder (-want +got):\n%s", diff)
	}
}

// TestHelpText (issues 26.3, 26.8): help is wrapped to a terminal's width
// (lines reached ~200 columns), and strata env suggests a per-node launcher.
func TestHelpText(t *testing.T) {
	tests := []struct {
		args    []string
		want    []string // substrings
		notWant []string
	}{
		{[]string{"env", "--help"}, []string{`--nproc-per-node "$SLURM_GPUS_ON_NODE"`, "across all its nodes"},
			[]string{`--nproc-per-node "$STRATA_WORKERS"`}},
		{[]string{"run", "--help"}, []string{"--slurm-bb-pool NAME=SIZE", "--slurm-scontrol PATH", "--calibrate "},
			[]string{"scontrol show burst  ", "--calibrate strata"}},
		{[]string{"serve", "--help"}, []string{"--basic-auth-file FILE"}, nil},
		{[]string{"report", "energy", "--help"}, []string{"--starttime value, -S value"}, nil},
		{[]string{"hint", "check", "--help"}, []string{"--strict"}, nil},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := runCLI(context.Background(), append([]string{"strata"}, tt.args...), &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			help := strings.Join(strings.Fields(out.String()), " ")
			for _, w := range tt.want {
				if !strings.Contains(help, w) {
					t.Errorf("help lacks %q:\n%s", w, out.String())
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(help, w) {
					t.Errorf("help has %q:\n%s", w, out.String())
				}
			}
			for _, line := range strings.Split(out.String(), "\n") {
				if n := utf8.RuneCountInString(line); n > helpColumns {
					t.Errorf("%d columns (at most %d): %q", n, helpColumns, line)
				}
			}
		})
	}
}
