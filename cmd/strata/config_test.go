package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func writeFile(t *testing.T, name, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestLoadConfigFileFlattens(t *testing.T) {
	p := writeFile(t, "s.toml", `
log_level = "debug"
interval = "30s"
[slurm]
url = "http://ctl:6820"
token_file = "/etc/strata/token"
[planner]
policies = ["smd", "fifo"]
`, 0o644)
	cfg, err := loadConfigFile(p)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"log-level": "debug", "interval": "30s", "slurm-url": "http://ctl:6820",
		"slurm-token-file": "/etc/strata/token", "planner-policies": "smd,fifo",
	}
	if diff := cmp.Diff(want, cfg.Values); diff != "" {
		t.Errorf("flattened keys (-want +got):\n%s", diff)
	}
}

func TestLoadConfigFileRefusesSecretsAndBadSyntax(t *testing.T) {
	tests := []struct{ name, body, wantErr string }{
		{"token in file", "[slurm]\njwt = \"eyJ...\"\n", `key "slurm-jwt" holds a secret`},
		{"password in file", "[database]\npassword = \"x\"\n", `set database.password-file instead`},
		{"syntax", "[slurm\nurl=1\n", "read configuration"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := loadConfigFile(writeFile(t, "c.toml", tt.body, 0o600))
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("err = %v, want it to contain %q", err, tt.wantErr)
			}
			if strings.Contains(err.Error(), "eyJ") {
				t.Errorf("error leaks the secret: %v", err)
			}
		})
	}
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
			app.Commands = withConfig([]*cli.Command{{
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
		{"valid", "log_level = \"info\"\n", 0, "OK (1 keys)"},
		{"unknown key", "[slurm]\nurll = \"x\"\n", 2, `unknown key "slurm-urll"`},
		{"secret file readable by others", "[demo]\ntoken_file = \"" + openToken + "\"\n", 2, "chmod 600"},
		{"secret file fine", "[demo]\ntoken_file = \"" + okToken + "\"\n", 0, "OK"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			app := newApp(&out, &out)
			app.Commands = withConfig([]*cli.Command{configCommand(), {
				Name:  "demo",
				Flags: []cli.Flag{&cli.StringFlag{Name: "demo-token-file"}},
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
