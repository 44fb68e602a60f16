package config

import (
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
)

// TestOverflowToldAsSuch (issue 34.4): a number or duration too large for
// its key is refused as too large, with the largest value taken, in the
// [planner] section and in every flag's key ("9999999h" was told "want a
// duration ≥ 0").
func TestOverflowToldAsSuch(t *testing.T) {
	for _, tc := range []struct {
		name, body, want string
	}{
		{"claim-floor", "[planner]\nclaim-floor = \"9999999h\"\n", `planner.claim-floor = "9999999h": too large: want at most 2562047h`},
		{"default-duration", "[planner]\ndefault-duration = \"9999999999999s\"\n", `planner.default-duration = "9999999999999s": too large: want at most 2562047h`},
		{"a float", "[planner]\nenergy-weight = 1e400\n", "planner.energy-weight\"): 1e400 is out of range for float64"},
		{"an integer", "[planner]\nnode-gpus = 99999999999999999999\n", "99999999999999999999 is out of range for int64"},
		{"a limit's GPUs", "[planner]\n[[planner.limits]]\nmax-gpus = 2000000\n", "limit 1: max-gpus: want a whole number from 0 to 1048576"},
		{"a negative duration is not an overflow", "[planner]\nstarvation-age = \"-1h\"\n", `planner.starvation-age = "-1h": want a duration ≥ 0`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Load(writeFile(t, tc.body))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Load = %v, want an error containing %q", err, tc.want)
			}
		})
	}
	flags := []cli.Flag{&cli.DurationFlag{Name: "interval"}, &cli.IntFlag{Name: "max"},
		&cli.Float64Flag{Name: "share"}, &cli.Uint64Flag{Name: "seed"}}
	for _, tc := range []struct {
		key, value, want string
	}{
		{"interval", "9999999h", `key "interval" = "9999999h": too large: want at most 2562047h`},
		{"interval", "soon", `key "interval" = "soon": want a duration such as`},
		{"max", "99999999999999999999", `key "max" = "99999999999999999999": too large: want a whole number from -9223372036854775808 to 9223372036854775807`},
		{"max", "x", `key "max" = "x": want a whole number`},
		{"share", "1e400", `key "share" = "1e400": too large: want a number of at most 1.7976931348623157e+308`},
		{"seed", "99999999999999999999", `key "seed" = "99999999999999999999": too large: want a whole number from 0 to 18446744073709551615`},
		{"seed", "-1", `key "seed" = "-1": want a whole number ≥ 0`},
	} {
		_, err := Context(cli.NewApp(), flags, map[string]string{tc.key: tc.value}, nil, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s = %q: %v, want an error containing %q", tc.key, tc.value, err, tc.want)
		}
	}
}
