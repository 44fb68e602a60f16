package config

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/urfave/cli/v2"
)

func TestContextPrecedence(t *testing.T) {
	flags := func() []cli.Flag {
		return []cli.Flag{
			&cli.StringFlag{Name: "policy", Value: "smd", EnvVars: []string{"T_POLICY"}},
			&cli.DurationFlag{Name: "interval", Value: time.Minute},
			&cli.IntFlag{Name: "max", Value: 20, EnvVars: []string{"T_MAX"}},
			&cli.StringSliceFlag{Name: "parts"},
			&cli.BoolFlag{Name: "enforce"},
		}
	}
	type view struct {
		Policy   string
		Interval time.Duration
		Max      int
		Parts    []string
		Enforce  bool
	}
	see := func(c *cli.Context) view {
		return view{c.String("policy"), c.Duration("interval"), c.Int("max"), c.StringSlice("parts"), c.Bool("enforce")}
	}
	tests := []struct {
		name           string
		env            map[string]string
		values, pinned map[string]string
		want           view
		wantErr        []string
	}{
		{name: "defaults", want: view{"smd", time.Minute, 20, nil, false}},
		{name: "file", values: map[string]string{"policy": "fifo", "interval": "30s", "parts": "a,b", "enforce": "true"},
			want: view{"fifo", 30 * time.Second, 20, []string{"a", "b"}, true}},
		{name: "environment over file", env: map[string]string{"T_MAX": "7"}, values: map[string]string{"max": "9"},
			want: view{"smd", time.Minute, 7, nil, false}},
		{name: "pinned over everything", env: map[string]string{"T_POLICY": "sjf"},
			values: map[string]string{"policy": "fifo"}, pinned: map[string]string{"policy": "qssf"},
			want: view{"qssf", time.Minute, 20, nil, false}},
		{name: "every bad value named", values: map[string]string{"enforce": "yes", "max": "-x", "interval": "soon"},
			wantErr: []string{`key "enforce" = "yes"`, `key "max" = "-x"`, `key "interval" = "soon"`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for k, v := range tt.env {
				t.Setenv(k, v)
			}
			c, err := Context(cli.NewApp(), flags(), tt.values, tt.pinned, nil)
			if len(tt.wantErr) > 0 {
				for _, w := range tt.wantErr {
					if err == nil || !strings.Contains(err.Error(), w) {
						t.Errorf("error %v lacks %q", err, w)
					}
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, see(c)); diff != "" {
				t.Errorf("values (-want +got):\n%s", diff)
			}
		})
	}
}
