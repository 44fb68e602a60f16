package slurm

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestFileTokenReloadsAndChecksMode(t *testing.T) {
	path := filepath.Join(t.TempDir(), "jwt")
	write := func(s string, mode os.FileMode, mtime time.Time) {
		t.Helper()
		if err := os.WriteFile(path, []byte(s), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chtimes(path, mtime, mtime); err != nil {
			t.Fatal(err)
		}
	}
	ft := NewFileToken(path)
	ctx := context.Background()
	t0 := time.Unix(1_700_000_000, 0)

	write("SLURM_JWT=first\n", 0o600, t0)
	if got, err := ft.Token(ctx); err != nil || got != "first" {
		t.Fatalf("Token() = %q, %v; want first", got, err)
	}
	write("second\n", 0o600, t0.Add(time.Second))
	if got, err := ft.Token(ctx); err != nil || got != "second" {
		t.Fatalf("after rotation Token() = %q, %v; want second", got, err)
	}
	write("second\n", 0o644, t0.Add(2*time.Second))
	_, err := ft.Token(ctx)
	if err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable token file: err = %v, want a chmod 600 hint", err)
	}
	if strings.Contains(err.Error(), "second") {
		t.Fatalf("error leaks the token: %v", err)
	}
	write("\n# nothing\n", 0o600, t0.Add(3*time.Second))
	if _, err := ft.Token(ctx); err == nil {
		t.Fatal("empty token file: want an error")
	}
}

func TestParseTokenFile(t *testing.T) {
	for in, want := range map[string]string{
		"abc":                        "abc",
		"SLURM_JWT=abc\n":            "abc",
		"export SLURM_JWT='abc'\n":   "abc",
		"\n\n  abc  \n":              "abc",
		"# comment\nSLURM_JWT=x.y.z": "x.y.z",
		"FOO=bar\n":                  "",
	} {
		if got := parseTokenFile(in); got != want {
			t.Errorf("parseTokenFile(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestSecretNeverPrints(t *testing.T) {
	cfg := Config{URL: "http://h:1", User: "root", Token: "eyJhbGciOi.secret.sig"}
	j, _ := json.Marshal(cfg)
	for _, s := range []string{fmt.Sprint(cfg), fmt.Sprintf("%+v", cfg), fmt.Sprintf("%#v", cfg), string(j)} {
		if strings.Contains(s, "secret") {
			t.Errorf("token leaked in %q", s)
		}
	}
}

func TestConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  Config
		want string // substring of the error; "" = valid
	}{
		{"ok", Config{URL: "http://127.0.0.1:6820", User: "root", Token: "t"}, ""},
		{"token file", Config{URL: "https://h:6820", User: "root", TokenFile: "/x"}, ""},
		{"socket without token", Config{Socket: "/run/slurmrestd.sock"}, ""},
		{"no url", Config{User: "root", Token: "t"}, "SLURM_REST_URL"},
		{"bad scheme", Config{URL: "ftp://h", User: "root", Token: "t"}, "want http"},
		{"no token", Config{URL: "http://h:1", User: "root"}, "SLURM_JWT"},
		{"no user", Config{URL: "http://h:1", Token: "t"}, "SLURM_USER_NAME"},
		{"negative timeout", Config{URL: "http://h:1", User: "u", Token: "t", Timeout: -1}, "negative"},
	}
	for _, tc := range tests {
		err := tc.cfg.Validate()
		if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
			t.Errorf("%s: Validate() = %v, want error containing %q", tc.name, err, tc.want)
		}
	}
}

// TestFileTokenRefusesAForeignOwner (issue 23.11): a 0600 token file owned
// by another account (here nobody) is refused, naming the file, the owner
// and the fix; the token never shows.
func TestFileTokenRefusesAForeignOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the file to nobody (internal/secretfile tests the rule without root)")
	}
	path := filepath.Join(t.TempDir(), "jwt")
	if err := os.WriteFile(path, []byte("SLURM_JWT=hidden\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(path, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	_, err := NewFileToken(path).Token(context.Background())
	if err == nil {
		t.Fatal("a 0600 token file owned by nobody was accepted")
	}
	for _, want := range []string{"slurm token file " + path, "is owned by ", "uid 65534", "run: chown "} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "hidden") {
		t.Errorf("error leaks the token: %v", err)
	}
}
