package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestGenDocs runs the hidden command `make package` uses on the real
// command tree: every command is in the manual page and the completions.
func TestGenDocs(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	if err := newApp(&out, &errb).Run([]string{"strata", "gen-docs", "--dir", dir}); err != nil {
		t.Fatalf("gen-docs: %v\n%s", err, errb.String())
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	man, bash, zsh := read("strata.1"), read("strata.bash"), read("_strata")
	for _, c := range commands() {
		if c.Hidden {
			continue
		}
		if !strings.Contains(man, "\n.SH "+c.Name+"\n") {
			t.Errorf("manual page lacks command %q", c.Name)
		}
		if !strings.Contains(bash, "'strata "+c.Name+"')") || !strings.Contains(zsh, "('strata "+c.Name+"')") {
			t.Errorf("a completion lacks command %q", c.Name)
		}
	}
	for _, want := range []string{"'strata db retention')", "--spool-file"} {
		if !strings.Contains(bash, want) {
			t.Errorf("bash completion lacks %q", want)
		}
	}
	// issue 26.8: the sections a manual page has, and placeholders, not ="".
	for _, want := range []string{".SH ENVIRONMENT", "STRATA_DATABASE_URL", ".SH EXIT STATUS", ".SH EXAMPLES",
		`\fB--slurm-retries\fP=N:`, `\fB--slurm-bb-pool\fP=NAME=SIZE:`} {
		if !strings.Contains(man, want) {
			t.Errorf("manual page lacks %q", want)
		}
	}
	if strings.Contains(man, `=""`) {
		t.Error(`manual page shows a flag's value as ="" (read as an empty default)`)
	}
	if strings.Contains(bash, "gen-docs') ") || strings.Contains(man, ".SH gen-docs") {
		t.Error("the hidden gen-docs command is documented")
	}
}
