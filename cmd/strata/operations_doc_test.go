package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOperationsExampleConfigIsValid keeps docs/operations.md honest: its
// example strata.toml passes `strata config check` (every key is a real
// flag, secrets are files).
func TestOperationsExampleConfigIsValid(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "docs", "operations.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "```toml\n")
	body, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatal("docs/operations.md has no ```toml example")
	}
	// issue 26.8: the example is installed as /etc/strata/strata.toml.example;
	// log-format applies to every command, an admin's at the terminal too.
	for _, line := range strings.Split(body, "\n") {
		line, _, _ = strings.Cut(line, "#")
		if k, v, ok := strings.Cut(line, "="); ok && strings.TrimSpace(k) == "log-format" && strings.Contains(v, `"json"`) {
			t.Errorf("the example configuration sets %q: JSON logs on an admin's terminal", strings.TrimSpace(line))
		}
	}
	dir := t.TempDir()
	body = strings.ReplaceAll(body, "/etc/strata/", dir+"/")
	for _, secret := range []string{"slurm.jwt", "db.password"} {
		if err := os.WriteFile(filepath.Join(dir, secret), []byte("x\n"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	cfg := filepath.Join(dir, "strata.toml")
	if err := os.WriteFile(cfg, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := newApp(&out, &errb).Run([]string{"strata", "--config", cfg, "config", "check"}); err != nil {
		t.Fatalf("config check of the documented example: %v\n%s", err, errb.String())
	}
	if !strings.Contains(out.String(), "OK") {
		t.Errorf("config check output %q", out.String())
	}
}
