package clidoc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/urfave/cli/v2"
)

// testApp is a small command tree with the shapes the real one has: global
// flags, short aliases, nested subcommands, a hidden command and a quote
// in a description.
func testApp() *cli.App {
	app := &cli.App{
		Name:  "strata",
		Usage: "test tree",
		Flags: []cli.Flag{&cli.StringFlag{Name: "config", Usage: "configuration file"}},
		Commands: []*cli.Command{
			{Name: "queue", Usage: "show the queue", Flags: []cli.Flag{
				&cli.BoolFlag{Name: "json", Usage: "JSON"},
				&cli.BoolFlag{Name: "noheader", Aliases: []string{"n"}, Usage: "omit the header"},
			}},
			{Name: "report", Usage: "reports", Subcommands: []*cli.Command{
				{Name: "energy", Usage: "GPU energy: kWh, J", Flags: []cli.Flag{
					&cli.StringFlag{Name: "starttime", Aliases: []string{"S"}, Usage: "first hour"},
					&cli.StringFlag{Name: "secret-ish", Usage: "hidden flag", Hidden: true},
				}},
				{Name: "refresh", Usage: "rebuild the rollups (it's idempotent)"},
			}},
			{Name: "gen-docs", Hidden: true, Usage: "hidden"},
		},
	}
	app.Setup()
	return app
}

func TestBashCompletion(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	script := filepath.Join(t.TempDir(), "strata.bash")
	if err := os.WriteFile(script, []byte(Bash(testApp())), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		line []string // words typed; the last one is being completed
		want []string
	}{
		{"commands", []string{"strata", ""}, []string{"queue", "report", "help", "h"}},
		{"command prefix", []string{"strata", "re"}, []string{"report"}},
		{"global flags", []string{"strata", "--"}, []string{"--config", "--help"}},
		{"after a global flag and its value", []string{"strata", "--config", "x.toml", "rep"}, []string{"report"}},
		{"subcommands", []string{"strata", "report", ""}, []string{"energy", "refresh"}},
		{"flags of a subcommand, aliases included", []string{"strata", "report", "energy", "-"}, []string{"--starttime", "-S", "--help"}},
		{"flag prefix", []string{"strata", "queue", "--no"}, []string{"--noheader"}},
		{"a leaf falls back to files", []string{"strata", "queue", "x"}, nil},
		{"hidden commands are not offered", []string{"strata", "gen"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quoted := make([]string, len(tc.line))
			for i, w := range tc.line {
				quoted[i] = shQuote(w)
			}
			prog := ". " + shQuote(script) + "\nCOMP_WORDS=(" + strings.Join(quoted, " ") + ")\n" +
				"COMP_CWORD=" + strconv.Itoa(len(tc.line)-1) + "\n_strata\nprintf '%s\\n' \"${COMPREPLY[@]}\"\n"
			out, err := exec.Command(bash, "--norc", "--noprofile", "-c", prog).CombinedOutput()
			if err != nil {
				t.Fatalf("bash: %v\n%s", err, out)
			}
			got := strings.Fields(string(out))
			if diff := cmp.Diff(tc.want, got, cmpopts.EquateEmpty()); diff != "" {
				t.Errorf("completions of %q (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

func TestZshCompletion(t *testing.T) {
	z := Zsh(testApp())
	for _, want := range []string{
		"#compdef strata\n",
		`'strata report energy')`,
		`'--starttime:first hour' '-S:first hour'`,
		`'energy:GPU energy: kWh, J'`,
		`'refresh:rebuild the rollups (it'\''s idempotent)'`,
	} {
		if !strings.Contains(z, want) {
			t.Errorf("zsh completion lacks %q", want)
		}
	}
	for _, hidden := range []string{"'gen-docs:", "secret-ish"} {
		if strings.Contains(z, hidden) {
			t.Errorf("zsh completion offers hidden %q", hidden)
		}
	}
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		t.Log("no zsh: syntax not checked")
		return
	}
	script := filepath.Join(t.TempDir(), "_strata")
	if err := os.WriteFile(script, []byte(z), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(zsh, "-n", script).CombinedOutput(); err != nil {
		t.Fatalf("zsh -n: %v\n%s", err, out)
	}
	// compsys's _describe and _files are replaced by stubs that print the
	// candidates' words: this checks the script's walk, not zsh's menus.
	for _, tc := range []struct {
		name string
		line []string
		want []string
	}{
		{"commands", []string{"strata", ""}, []string{"queue", "report", "help", "h"}},
		{"after a global flag and its value", []string{"strata", "--config", "x.toml", "re"}, []string{"queue", "report", "help", "h"}},
		{"flags of a subcommand", []string{"strata", "report", "energy", "-"}, []string{"--starttime", "-S", "--help"}},
		{"a leaf falls back to files", []string{"strata", "queue", "x"}, []string{"(files)"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			quoted := make([]string, len(tc.line))
			for i, w := range tc.line {
				quoted[i] = shQuote(w)
			}
			prog := "_describe() { local -a a; a=(\"${(@P)4}\"); print -l -- ${a%%:*} }\n" +
				"_files() { print '(files)' }\n" +
				"source " + shQuote(script) + " >/dev/null\n" +
				"words=(" + strings.Join(quoted, " ") + "); CURRENT=" + strconv.Itoa(len(tc.line)) +
				"; PREFIX=" + shQuote(tc.line[len(tc.line)-1]) + "\n_strata\n"
			out, err := exec.Command(zsh, "-f", "-c", prog).CombinedOutput()
			if err != nil {
				t.Fatalf("zsh: %v\n%s", err, out)
			}
			if diff := cmp.Diff(tc.want, strings.Fields(string(out))); diff != "" {
				t.Errorf("completions of %q (-want +got):\n%s", tc.line, diff)
			}
		})
	}
}

func TestWrite(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "out")
	if err := Write(testApp(), dir, "# FILES\n\n*/etc/strata/strata.toml*\n: the configuration\n"); err != nil {
		t.Fatal(err)
	}
	man, err := os.ReadFile(filepath.Join(dir, Files.Man))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`.TH strata 1`, "queue", "energy", "starttime", `.SH FILES`, "/etc/strata/strata.toml"} {
		if !strings.Contains(string(man), want) {
			t.Errorf("manual page lacks %q", want)
		}
	}
	if strings.Contains(string(man), "gen-docs") {
		t.Error("manual page shows the hidden command")
	}
	for _, f := range []string{Files.Bash, Files.Zsh} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
}

// TestManSections (issue 26.8): the manual page has ENVIRONMENT (from the
// flags' variables), EXIT STATUS and EXAMPLES, and a value flag shows a
// placeholder (--retries=N), never ="" (which read as an empty default).
func TestManSections(t *testing.T) {
	app := testApp()
	app.Commands[0].Flags = append(app.Commands[0].Flags,
		&cli.IntFlag{Name: "retries", Value: 3, EnvVars: []string{"STRATA_RETRIES"}, Usage: "retries"},
		&cli.DurationFlag{Name: "timeout", Usage: "timeout"},
		&cli.StringFlag{Name: "plot", Usage: "plots into `DIR`"})
	man, err := Man(app, PackageFiles)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{".SH ENVIRONMENT", "STRATA_RETRIES", "sets --retries", ".SH EXIT STATUS", ".SH EXAMPLES",
		`\fB--retries\fP=N: retries (default: 3)`, `\fB--timeout\fP=DURATION`, `\fB--plot\fP=DIR`, `\fB--starttime, -S\fP=VALUE`} {
		if !strings.Contains(man, want) {
			t.Errorf("manual page lacks %q", want)
		}
	}
	if strings.Contains(man, `=""`) {
		t.Errorf("manual page has =\"\":\n%s", man)
	}
	var order []string
	for _, l := range strings.Split(man, "\n") {
		if strings.HasPrefix(l, ".SH ") && strings.ToUpper(l) == l {
			order = append(order, strings.TrimPrefix(l, ".SH "))
		}
	}
	want := []string{"NAME", "SYNOPSIS", "GLOBAL OPTIONS", "COMMANDS", "ENVIRONMENT", "EXIT STATUS", "FILES", "EXAMPLES", "SEE ALSO"}
	if d := cmp.Diff(want, order); d != "" {
		t.Errorf("sections (-want +got):\n%s", d)
	}
}
