package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	secret := func(name string, mode os.FileMode) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("x"), mode); err != nil {
			t.Fatal(err)
		}
		return p
	}
	okToken, openToken := secret("token", 0o600), secret("open-token", 0o644)
	app := &cli.App{
		Flags: []cli.Flag{&cli.StringFlag{Name: "log-level"}},
		Commands: []*cli.Command{
			{Name: "run", Flags: []cli.Flag{&cli.IntFlag{Name: "cycles"}, &cli.StringFlag{Name: "policy", Value: "smd"}}},
			{Name: "plan", Flags: []cli.Flag{&cli.StringFlag{Name: "policy", Value: "smd"}}},
			{Name: "db", Subcommands: []*cli.Command{{Name: "migrate", Flags: []cli.Flag{&cli.StringFlag{Name: "db-token-file"}}}}},
		},
	}
	// Both commands refuse the same policy: the problem is listed once.
	policy := func(c *cli.Context, _ *File) error {
		if p := c.String("policy"); p != "smd" {
			return fmt.Errorf("--policy %q: want smd", p)
		}
		return nil
	}
	validators := map[string]Validator{"run": policy, "plan": policy}
	tests := []struct {
		name    string
		values  map[string]string
		loadErr error
		want    []string
	}{
		{"valid", map[string]string{"log-level": "info", "cycles": "3", "db-token-file": okToken}, nil, nil},
		{"unknown key", map[string]string{"slurm-urll": "x"}, nil,
			[]string{`unknown key "slurm-urll" (no flag --slurm-urll exists; see strata help)`}},
		{"open secret file", map[string]string{"db-token-file": openToken}, nil,
			[]string{fmt.Sprintf("db-token-file %s has mode 0644: a secret must not be readable by others; run: chmod 600 %s", openToken, openToken)}},
		{"bad values, once each", map[string]string{"cycles": "many", "policy": "fifo"}, nil,
			[]string{`key "cycles" = "many": want a whole number`, `--policy "fifo": want smd`}},
		{"load problems first, flattened", map[string]string{"policy": "smd"},
			fmt.Errorf("configuration f:\n%w", errors.Join(errors.New("a"), errors.New("b"))), []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, err := range Check(app, &File{Path: "f", Values: tt.values}, tt.loadErr, validators) {
				got = append(got, err.Error())
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s", diff)
			}
		})
	}
}

// TestCheckSecretFileOwner (issue 23.11): a 0600 password file owned by
// another account is refused by config check and by the database flags.
func TestCheckSecretFileOwner(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to give the file to nobody (internal/secretfile tests the rule without root)")
	}
	p := filepath.Join(t.TempDir(), "pw")
	if err := os.WriteFile(p, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := CheckSecretFile("database-password-file", p); err != nil {
		t.Fatalf("own file refused: %v", err)
	}
	if err := os.Chown(p, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	err := CheckSecretFile("database-password-file", p)
	if err == nil {
		t.Fatal("a 0600 file owned by nobody was accepted")
	}
	if want := "database-password-file " + p + " is owned by "; !strings.HasPrefix(err.Error(), want) {
		t.Errorf("error %q does not start with %q", err, want)
	}
}
