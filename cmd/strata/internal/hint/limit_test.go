package hint

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/planner"
)

// TestCheckStatesTheTimeLimit (issue 30.4): hint check says, in text and
// JSON, which time limit the job would get from Strata and why: kept at a
// site that binds no claim (the default); with bind-claims on, the limit a
// user with a record of understatement would be bound to (the slowest
// modelled run × BindRecordFactor × margin, at least the floor), kept when
// --time is close to it, for rewrite=no and for a job without a hint.
func TestCheckStatesTheTimeLimit(t *testing.T) {
	const hint = "strata: model=resnet50 batch=256 epochs=1 samples=100000 gpus=1-4" // 1 GPU: 00:11:34
	script := func(limit time.Duration, comment string) Script {
		return Script{GPUs: 4, TimeLimit: limit, Comment: comment, HasComment: true}
	}
	bind := planner.Options{Limits: planner.DefaultLimits(), BindClaims: true}
	tests := []struct {
		name     string
		s        Script
		o        planner.Options
		want     LimitInfo // Why and Text compared as substrings
		wantText string
	}{
		{"default: kept", script(2*time.Hour, hint), planner.Options{Limits: planner.DefaultLimits()},
			LimitInfo{Kept: true, LimitS: 7200}, "time limit: 02:00:00 kept: Strata changes no time limit at this site"},
		{"bind-claims: bound if the record shows understatement", script(2*time.Hour, hint), bind,
			LimitInfo{Kept: true, LimitS: 7200, BoundS: 35 * 60}, "then Strata lowers it to at least 00:35:00"},
		{"bind-claims, floor and margin of the site", script(10*time.Hour, hint),
			planner.Options{Limits: planner.DefaultLimits(), BindClaims: true, ClaimMargin: 3, ClaimFloor: time.Hour},
			LimitInfo{Kept: true, LimitS: 36000, BoundS: 3600}, "at least 01:00:00 (3× the prediction"},
		{"bind-claims, --time close to the bound", script(45*time.Minute, hint), bind,
			LimitInfo{Kept: true, LimitS: 2700}, "--time=00:45:00 is within 1.5× the limit a bound claim would get (00:35:00)"},
		{"bind-claims, rewrite=no", script(2*time.Hour, hint+" rewrite=no"), bind,
			LimitInfo{Kept: true, LimitS: 7200}, "rewrite=no"},
		{"bind-claims, no hint", script(2*time.Hour, ""), bind,
			LimitInfo{Kept: true, LimitS: 7200}, "time limit: 02:00:00 kept: no strata: hint"},
		{"no --time", script(0, hint), planner.Options{Limits: planner.DefaultLimits()},
			LimitInfo{Kept: true}, "time limit: the partition's default kept"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var text, js strings.Builder
			o := Options{Catalog: planner.DefaultCatalog(), Planner: tt.o}
			if err := CheckScript(&text, tt.s, o); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(text.String(), tt.wantText) {
				t.Errorf("text %q lacks %q", text.String(), tt.wantText)
			}
			o.JSON = true
			if err := CheckScript(&js, tt.s, o); err != nil {
				t.Fatal(err)
			}
			var res Result
			if err := jsonDecode([]byte(js.String()), &res); err != nil || res.TimeLimit == nil {
				t.Fatalf("json: %v %s", err, js.String())
			}
			if !strings.Contains(res.TimeLimit.Text, tt.wantText) {
				t.Errorf("json text %q lacks %q", res.TimeLimit.Text, tt.wantText)
			}
			got := *res.TimeLimit
			got.Why, got.Text = "", ""
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("time_limit (-want +got):\n%s", diff)
			}
		})
	}
}
