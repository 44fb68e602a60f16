package config

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

// TestReloader: the file changes after start; a reload takes the new values
// of reloadable keys only, keeps what the command line and the environment
// pinned, and returns keys the file dropped to their defaults.
func TestReloader(t *testing.T) {
	path := filepath.Join(t.TempDir(), "strata.toml")
	write := func(body string) {
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("policy = \"smd\"\ncycles = 5\nlisten = \"a\"\nlevel = \"x\"\n")
	t.Setenv("T_RELOAD_LEVEL", "from-env")
	type opts struct{ Policy, Listen, Level, Prefix, Cycles string }
	read := func(c *cli.Context, _ *File) (opts, error) {
		return opts{c.String("policy"), c.String("listen"), c.String("level"), c.String("prefix"), c.String("cycles")}, nil
	}
	var got []opts
	app := &cli.App{Commands: []*cli.Command{{Name: "run",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "policy", Value: "fifo"}, &cli.StringFlag{Name: "listen"},
			&cli.StringFlag{Name: "level", EnvVars: []string{"T_RELOAD_LEVEL"}}, &cli.StringFlag{Name: "prefix"},
			&cli.IntFlag{Name: "cycles"},
		},
		Action: func(c *cli.Context) error {
			f, err := Load(path)
			if err != nil {
				return err
			}
			for name, v := range f.Values {
				if !c.IsSet(name) {
					if err := c.Set(name, v); err != nil {
						return err
					}
				}
			}
			reload := Reloader(c, f, []string{"policy", "level", "prefix", "cycles"}, read)
			write("policy = \"tiresias\"\nlisten = \"b\"\nlevel = \"y\"\nprefix = \"z\"\n")
			o, err := reload()
			got = append(got, o)
			noFile := Reloader(c, nil, []string{"policy"}, read)
			o, _ = noFile()
			got = append(got, o)
			return err
		}}}}
	if err := app.Run([]string{"strata", "run", "--prefix", "x-"}); err != nil {
		t.Fatal(err)
	}
	want := []opts{
		// listen is not reloadable, level and prefix are pinned, cycles
		// left the file: back to its default
		{"tiresias", "a", "from-env", "x-", "0"},
		// without a file: the start-up values
		{"smd", "a", "from-env", "x-", "5"},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("options after reload (-want +got):\n%s", diff)
	}
}
