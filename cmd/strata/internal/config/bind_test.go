package config

import (
	"strings"
	"testing"
	"time"
)

// TestPlannerBindClaims (issue 22.2): bind-claims, claim-margin and
// claim-floor reach the planner's options; a margin below 1 or a floor
// under planner.MinBoundLimit is refused with the key named.
func TestPlannerBindClaims(t *testing.T) {
	f, err := Load(writeFile(t, "[planner]\nbind-claims = true\nclaim-margin = 3\nclaim-floor = \"1h\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	o := f.Planner.Options()
	if !o.BindClaims || o.ClaimMargin != 3 || o.ClaimFloor != time.Hour {
		t.Errorf("options: bind %v margin %v floor %v, want true 3 1h", o.BindClaims, o.ClaimMargin, o.ClaimFloor)
	}
	if err := o.Validate(); err != nil {
		t.Errorf("validated section refused by the planner: %v", err)
	}
	if o := (Planner{}).Options(); o.BindClaims {
		t.Error("claims bound by default: no time limit is lowered unless the site asks (issue 30)")
	}
	off, err := Load(writeFile(t, "[planner]\nbind-claims = false\n"))
	if err != nil {
		t.Fatal(err)
	}
	if off.Planner.Options().BindClaims {
		t.Error("bind-claims = false still binds")
	}
	for _, bad := range []string{"claim-margin = 0.5", "claim-floor = \"1m\"", "bind-claims = 1"} {
		if _, err := Load(writeFile(t, "[planner]\n"+bad+"\n")); err == nil || !strings.Contains(err.Error(), strings.Fields(bad)[0]) {
			t.Errorf("%s: error %v, want one naming the key", bad, err)
		}
	}
}

// shrink (issue 30): without it no job is planned on fewer GPUs than it
// asked for (planner.Options.KeepRequest); shrink = true lets a gpus=
// range shrink a job; anything but a boolean is refused, naming the key.
func TestPlannerShrink(t *testing.T) {
	for _, tc := range []struct {
		toml string
		keep bool
	}{{"", true}, {"[planner]\nshrink = false\n", true}, {"[planner]\nshrink = true\n", false}} {
		f, err := Load(writeFile(t, tc.toml))
		if err != nil {
			t.Fatal(err)
		}
		if got := PlannerOptions(f).KeepRequest; got != tc.keep {
			t.Errorf("%q: KeepRequest %v, want %v", tc.toml, got, tc.keep)
		}
	}
	if got := PlannerOptions(nil).KeepRequest; !got {
		t.Error("no file: KeepRequest false, want the site default (true)")
	}
	_, err := Load(writeFile(t, "[planner]\nshrink = \"yes\"\n"))
	if err == nil || !strings.Contains(err.Error(), "shrink") {
		t.Errorf("shrink = \"yes\": %v, want an error naming shrink", err)
	}
}
