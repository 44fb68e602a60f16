package cliargs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func TestInterspersed(t *testing.T) {
	app := &cli.App{
		Flags: []cli.Flag{&cli.StringFlag{Name: "config"}},
		Commands: []*cli.Command{
			{Name: "explain", Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}, &cli.IntFlag{Name: "history"}}},
			{Name: "hint", Subcommands: []*cli.Command{{Name: "check", Flags: []cli.Flag{&cli.BoolFlag{Name: "json"}}}}},
		},
	}
	tests := []struct{ in, want []string }{
		{[]string{"strata", "explain", "102", "--json"}, []string{"strata", "explain", "--json", "--", "102"}},
		{[]string{"strata", "--config", "f", "explain", "102", "--history", "3", "--json"},
			[]string{"strata", "--config", "f", "explain", "--history", "3", "--json", "--", "102"}},
		{[]string{"strata", "explain", "--json", "102"}, []string{"strata", "explain", "--json", "--", "102"}},
		{[]string{"strata", "explain", "102"}, []string{"strata", "explain", "102"}},
		{[]string{"strata", "hint", "check", "model=x gpus=1-2", "--json"},
			[]string{"strata", "hint", "check", "--json", "--", "model=x gpus=1-2"}},
		{[]string{"strata", "explain", "--", "-5", "--json"}, []string{"strata", "explain", "--", "-5", "--json"}},
		{[]string{"strata", "explain", "102", "--nosuch"}, []string{"strata", "explain", "--nosuch", "--", "102"}},
		{[]string{"strata"}, []string{"strata"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, Interspersed(app, tt.in)); diff != "" {
			t.Errorf("Interspersed(%q) (-want +got):\n%s", tt.in, diff)
		}
	}
}
