package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"

	"github.com/strata-hpc/strata/cmd/strata/internal/config"
)

func writeFile(t *testing.T, name, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestConfigPrecedence runs a real command: flag > env > file > default.
func TestConfigPrecedence(t *testing.T) {
	p := writeFile(t, "s.toml", "[demo]\nname = \"from-file\"\ncount = 7\n", 0o644)
	tests := []struct {
		name string
		args []string
		env  string
		want string
	}{
		{"file over default", nil, "", "from-file 7"},
		{"env over file", nil, "from-env", "from-env 7"},
		{"flag over env", []string{"--demo-name", "from-flag"}, "from-env", "from-flag 7"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Setenv("DEMO_NAME", tt.env)
			if tt.env == "" {
				os.Unsetenv("DEMO_NAME")
			}
			var out bytes.Buffer
			app := newApp(&out, &out)
			app.Commands = config.Wrap([]*cli.Command{{
				Name: "demo",
				Flags: []cli.Flag{
					&cli.StringFlag{Name: "demo-name", Value: "default", EnvVars: []string{"DEMO_NAME"}},
					&cli.IntFlag{Name: "demo-count", Value: 1},
				},
				Action: func(c *cli.Context) error {
					out.WriteString(c.String("demo-name") + " " + c.String("demo-count"))
					return nil
				},
			}})
			args := append([]string{"strata", "--config", p, "demo"}, tt.args...)
			if err := app.RunContext(context.Background(), args); err != nil {
				t.Fatal(err)
			}
			if got := out.String(); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestConfigCheck(t *testing.T) {
	okToken := writeFile(t, "token", "x", 0o600)
	openToken := writeFile(t, "open-token", "x", 0o644)
	tests := []struct {
		name     string
		body     string
		wantCode int
		wantOut  string
	}{
		{"valid", "log_level = \"info\"\n", 0, "OK (1 key; not connected: --connect also tries slurmrestd and Postgres)"},
		{"unknown key", "[slurm]\nurll = \"x\"\n", 2, `is invalid (1 problem):` + "\n" + `unknown key "slurm-urll"`},
		{"a flag in its command's section", "[demo]\nthing = \"x\"\n", 0, "OK (1 key;"},
		{"secret file readable by others", "[demo]\ntoken_file = \"" + openToken + "\"\n", 2, "chmod 600"},
		{"secret file fine", "[demo]\ntoken_file = \"" + okToken + "\"\n", 0, "OK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			app := newApp(&out, &out)
			app.Commands = config.Wrap([]*cli.Command{configCommand(), {
				Name:  "demo",
				Flags: []cli.Flag{&cli.StringFlag{Name: "demo-token-file"}, &cli.StringFlag{Name: "thing"}},
			}})
			err := app.RunContext(context.Background(), []string{"strata", "--config", writeFile(t, "c.toml", tt.body, 0o600), "config", "check"})
			code := 0
			if ec, ok := err.(exitCoder); ok {
				code = ec.ExitCode()
			} else if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			msg := out.String()
			if err != nil {
				msg += err.Error()
			}
			if code != tt.wantCode || !strings.Contains(msg, tt.wantOut) {
				t.Errorf("code %d output %q; want code %d containing %q", code, msg, tt.wantCode, tt.wantOut)
			}
		})
	}
}

// TestConfigCheckValidatesLikeRun: the files of the issue that `config
// check` used to pass although `strata run` refused them; every problem is
// listed at once, exit status 2.
func TestConfigCheckValidatesLikeRun(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string
	}{
		{"run's values", "policy = \"smdd\"\nenforce = \"yes\"\nmax-rewrites-per-cycle = -5\n" +
			"[database]\nurl = \"postgres://strata:hunter2@db1/strata\"\n",
			[]string{`--policy "smdd"`, `key "enforce" = "yes"`, "--max-rewrites-per-cycle", `key "database-url" carries a password`}},
		{"planner section", "interval = \"0s\"\n[planner]\nps-comm = \"fast\"\nlong-job-share = -1\n",
			[]string{"--interval 0s", "planner.ps-comm", "planner.long-job-share"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			app := newApp(&out, &out)
			err := app.RunContext(context.Background(), []string{"strata", "--config", writeFile(t, "c.toml", tt.body, 0o600), "config", "check"})
			ec, ok := err.(exitCoder)
			if !ok || ec.ExitCode() != 2 {
				t.Fatalf("err = %v, want exit status 2", err)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("config check output lacks %q:\n%v", w, err)
				}
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("config check echoes the password: %v", err)
			}
			// run refuses the same file, with exit status 2
			var rout bytes.Buffer
			rerr := newApp(&rout, &rout).RunContext(context.Background(), []string{"strata", "--config",
				writeFile(t, "c.toml", tt.body, 0o600), "run", "--cycles", "1"})
			if ec, ok := rerr.(exitCoder); !ok || ec.ExitCode() != 2 {
				t.Errorf("run with the same file: err = %v, want exit status 2", rerr)
			}
		})
	}
}

// TestConfigCheckConnect (issue 26.8): --connect tries slurmrestd and
// Postgres with the file's settings, and fails (status 1) naming each that
// does not answer; without it the output says nothing was tried.
func TestConfigCheckConnect(t *testing.T) {
	// make test exports the test bed's slurmrestd and database: the
	// environment would win over the file's settings under test.
	unsetEnv(t, "SLURM_REST_URL", "STRATA_SLURM_URL", "SLURM_USER_NAME", "STRATA_SLURM_USER", "SLURM_JWT",
		"STRATA_SLURM_TOKEN_FILE", "STRATA_DATABASE_URL", "DATABASE_URL")
	token := writeFile(t, "slurm.jwt", "x\n", 0o600)
	cfg := writeFile(t, "strata.toml", "[slurm]\nurl = \"http://127.0.0.1:1\"\nretries = -1\ntimeout = \"2s\"\nuser = \"strata\"\ntoken-file = \""+token+"\"\n"+
		"[database]\nurl = \"postgres://strata@127.0.0.1:1/strata?connect_timeout=2\"\n", 0o600)
	var out, errb bytes.Buffer
	code := runCLI(context.Background(), []string{"strata", "--config", cfg, "config", "check", "--connect"}, &out, &errb)
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"strata: slurmrestd http://127.0.0.1:1: ", "strata: postgres postgres://strata@127.0.0.1:1/strata"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, errb.String())
		}
	}
}

// unsetEnv removes environment variables for the test and restores them
// after it.
func unsetEnv(t *testing.T, names ...string) {
	t.Helper()
	for _, n := range names {
		if v, ok := os.LookupEnv(n); ok {
			os.Unsetenv(n)
			t.Cleanup(func() { os.Setenv(n, v) })
		}
	}
}

// TestCollectSourceInItsSection (issue 26.8): [collect] source is
// collect's --source, as [collect] metrics-listen always was.
func TestCollectSourceInItsSection(t *testing.T) {
	cfg := writeFile(t, "strata.toml", "[collect]\nsource = \"replay\"\nreplay-file = \"/nonexistent/rec.jsonl\"\nmetrics-listen = \"\"\n", 0o600)
	var out, errb bytes.Buffer
	if code := runCLI(context.Background(), []string{"strata", "--config", cfg, "config", "check"}, &out, &errb); code != 0 {
		t.Errorf("config check: exit %d: %s", code, errb.String())
	}
	errb.Reset()
	runCLI(context.Background(), []string{"strata", "--config", cfg, "collect"}, &out, &errb)
	if s := errb.String(); strings.Contains(s, "is required") || !strings.Contains(s, "/nonexistent/rec.jsonl") {
		t.Errorf("collect with [collect] source: %q, want it to try the replay file", s)
	}
}
