package config

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestStartAndWrap runs an app whose Before hook is Start and whose
// commands are wrapped: what each command sees, and what stops it.
func TestStartAndWrap(t *testing.T) {
	tests := []struct {
		name    string
		file    string
		args    []string
		want    string // "level name" the command saw
		wantErr string // an Error containing it
	}{
		{"file sets the global and the command's flags", "level = \"debug\"\nname = \"file\"\n", []string{"show"}, "debug file", ""},
		{"flags win over the file", "level = \"debug\"\nname = \"file\"\n", []string{"--level", "warn", "show", "--name", "flag"}, "warn flag", ""},
		{"no key: the defaults", "", []string{"show"}, "info default", ""},
		{"a value the flag refuses", "count = \"many\"\n", []string{"show"}, "", `configuration FILE: key "count" = "many"`},
		{"a file with problems stops commands", "password = \"x\"\n", []string{"show"}, "", "(strata config check lists every problem)"},
		{"but not config's subcommands", "password = \"x\"\n", []string{"config", "check"}, "checked", ""},
		{"syntax errors stop everything", "name = \n", []string{"config", "check"}, "", "read configuration FILE"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "strata.toml")
			if err := os.WriteFile(path, []byte(tt.file), 0o600); err != nil {
				t.Fatal(err)
			}
			var got string
			app := &cli.App{
				Flags:  []cli.Flag{&cli.StringFlag{Name: "level", Value: "info"}, &cli.StringFlag{Name: "config"}},
				Before: func(c *cli.Context) error { return Start(c, c.String("config"), []string{"level"}) },
				Commands: Wrap([]*cli.Command{
					{Name: "show", Flags: []cli.Flag{&cli.StringFlag{Name: "name", Value: "default"}, &cli.IntFlag{Name: "count"}},
						Action: func(c *cli.Context) error { got = c.String("level") + " " + c.String("name"); return nil }},
					{Name: "config", Subcommands: []*cli.Command{{Name: "check",
						Action: func(c *cli.Context) error { got = "checked"; return nil }}}},
				}),
				ExitErrHandler: func(*cli.Context, error) {},
			}
			err := app.RunContext(context.Background(), append([]string{"strata", "--config", path}, tt.args...))
			var cfgErr Error
			switch {
			case tt.wantErr == "" && err != nil:
				t.Fatalf("err = %v", err)
			case tt.wantErr != "" && (!errors.As(err, &cfgErr) || cfgErr.ExitCode() != 2 ||
				!strings.Contains(strings.ReplaceAll(err.Error(), path, "FILE"), tt.wantErr)):
				t.Errorf("err = %v, want an Error (exit 2) containing %q", err, tt.wantErr)
			}
			if got != tt.want {
				t.Errorf("command saw %q, want %q", got, tt.want)
			}
		})
	}
}
