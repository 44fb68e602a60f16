package sim

import (
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// TestAssignUsers holds the documented rule: the k-th job in submission
// order belongs to user k mod N + 1, zero-padded to N's width; users the
// trace has are kept; N ≤ 0 changes nothing; the input is not modified.
func TestAssignUsers(t *testing.T) {
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,user\na,0,1,1,\nb,1,1,1,\nc,2,1,1,alice\nd,3,1,1,\ne,4,1,1,\n")
	users := func(tr *Trace) []string {
		var out []string
		for _, j := range tr.Jobs {
			out = append(out, j.User)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		n    int
		want []string
	}{
		{"two users", 2, []string{"u1", "u2", "alice", "u2", "u1"}},
		{"width of N", 12, []string{"u01", "u02", "alice", "u04", "u05"}},
		{"none", 0, []string{"", "", "alice", "", ""}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if d := cmp.Diff(tt.want, users(AssignUsers(tr, tt.n))); d != "" {
				t.Errorf("users (-want +got):\n%s", d)
			}
		})
	}
	if d := cmp.Diff([]string{"", "", "alice", "", ""}, users(tr)); d != "" {
		t.Errorf("input changed (-want +got):\n%s", d)
	}
}

func TestParseHonesty(t *testing.T) {
	for _, tt := range []struct {
		in      string
		want    Honesty
		wantErr bool
	}{
		{in: "0.1:100", want: Honesty{Fraction: 0.1, Factor: 100, Tactic: TacticPlain}},
		{in: "0.5:1", want: Honesty{Fraction: 0.5, Factor: 1, Tactic: TacticPlain}},
		{in: "0.1:3:tiny", want: Honesty{Fraction: 0.1, Factor: 3, Tactic: TacticTiny}},
		{in: "0.1:3:preempt", want: Honesty{Fraction: 0.1, Factor: 3, Tactic: TacticPreempt}},
		{in: "0.1:3:sneaky", wantErr: true},
		{in: "0.1", wantErr: true},
		{in: "1.5:10", wantErr: true},
		{in: "0.1:0.5", wantErr: true},
		{in: "x:10", wantErr: true},
	} {
		got, err := ParseHonesty(tt.in)
		if (err != nil) != tt.wantErr {
			t.Errorf("ParseHonesty(%q) error %v, want error %v", tt.in, err, tt.wantErr)
			continue
		}
		if d := cmp.Diff(tt.want, got); d != "" && !tt.wantErr {
			t.Errorf("ParseHonesty(%q) (-want +got):\n%s", tt.in, d)
		}
	}
}

// TestMakeDishonest: a tenth of 20 users (2, the same for a seed) lie:
// every hint of theirs claims the work divided by the factor, every other
// hint the true work; factor 1 marks the same users without a lie.
func TestMakeDishonest(t *testing.T) {
	sc := readScalingFile(t, "testdata/pollux_scaling.csv")
	tr := AssignUsers(readTraceFile(t, "testdata/pollux_workload1.csv"), 20)
	truth := Truth{Scaling: sc}
	iters := func(comment string) string {
		for _, f := range strings.Fields(comment) {
			if strings.HasPrefix(f, "iters=") {
				return f
			}
		}
		return ""
	}
	lying, liars := MakeDishonest(tr, Honesty{Fraction: 0.1, Factor: 100, Seed: 7})
	marked, same := MakeDishonest(tr, Honesty{Fraction: 0.1, Factor: 1, Seed: 7})
	if len(liars) != 2 {
		t.Fatalf("liars %v: want 2 of 20 users", liars)
	}
	if d := cmp.Diff(liars, same); d != "" {
		t.Errorf("factor 1 marks other users (-lying +marked):\n%s", d)
	}
	if _, other := MakeDishonest(tr, Honesty{Fraction: 0.1, Factor: 100, Seed: 8}); cmp.Equal(other, liars) {
		t.Errorf("seeds 7 and 8 drew the same liars %v", liars)
	}
	if again, _ := MakeDishonest(tr, Honesty{Fraction: 0.1, Factor: 100, Seed: 7}); !cmp.Equal(again.Jobs, lying.Jobs, cmp.AllowUnexported()) {
		t.Error("the same seed gave other jobs")
	}
	lies := 0
	for k := range tr.Jobs {
		orig, lied, mk := &tr.Jobs[k], &lying.Jobs[k], &marked.Jobs[k]
		isLiar := lied.User == liars[0] || lied.User == liars[1]
		if lied.Dishonest != isLiar || mk.Dishonest != isLiar {
			t.Fatalf("job %s of %s: dishonest %v/%v, want %v", orig.ID, orig.User, lied.Dishonest, mk.Dishonest, isLiar)
		}
		want := orig.Iterations
		if isLiar {
			want = max(1, (orig.Iterations+50)/100)
			lies++
		}
		got := iters(HintRange{}.comment(truth, lied, 64))
		if got != "iters="+strconv.FormatInt(want, 10) {
			t.Errorf("job %s (liar %v): hint says %s, want iters=%d", orig.ID, isLiar, got, want)
		}
		if h := iters(HintRange{}.comment(truth, mk, 64)); h != "iters="+strconv.FormatInt(orig.Iterations, 10) {
			t.Errorf("job %s: factor 1 hint says %s, want the true iters=%d", orig.ID, h, orig.Iterations)
		}
		if lied.Duration != orig.Duration {
			t.Errorf("job %s: a lie changed the true duration", orig.ID)
		}
	}
	if lies != 16 {
		t.Errorf("%d lying jobs, want 16 (2 users × every 20th of 160)", lies)
	}
}

// TestWriteHonestyEvaluation: rows compare each later run of a trace with
// its first (all-honest) run, job set for job set, against the targets.
func TestWriteHonestyEvaluation(t *testing.T) {
	rep := func(label string, honest, dishonest float64, kills int) *Report {
		return &Report{Trace: "w1.csv", Label: label, Results: []*Result{{Policy: "smd", TimeLimitKills: kills,
			Honesty: &HonestyStats{HonestJobs: 9, HonestAvgJCT: honest, DishonestJobs: 1, DishonestAvgJCT: dishonest, DishonestKills: kills}}}}
	}
	var b strings.Builder
	if err := WriteHonestyEvaluation(&b, []*Report{rep("honest", 1000, 500, 0), rep("pays", 1100, 400, 0), rep("caught", 1040, 900, 2)}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| pays | smd | 1000 | 1100 | 1.100 ✗ | 500 | 400 | 0.800 ✗ | 0 (0) | 0 |",
		"| caught | smd | 1000 | 1040 | 1.040 ✓ | 500 | 900 | 1.800 ✓ | 2 (2) | 0 |",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("table lacks %q:\n%s", want, b.String())
		}
	}
	if strings.Contains(b.String(), "| honest |") {
		t.Errorf("the all-honest base got a row of its own:\n%s", b.String())
	}
	if err := WriteHonestyEvaluation(&b, []*Report{rep("honest", 1000, 500, 0)}); err == nil {
		t.Error("a base alone: want an error")
	}
}

// TestTactics (issue 30.2): the preempt tactic writes preempt=yes on the
// liars' jobs without making them requeueable; the tiny tactic adds two
// honest 2-minute jobs of the same model before each lie, also when the
// factor is 1 (the all-honest twin has the same jobs), in submit order.
func TestTactics(t *testing.T) {
	tr := mustTrace(t, "job_id,submit_time,duration_s,gpus,nodes,model,batch_size,iterations,user\n"+
		"a,0,600,4,1,deepspeech2,320,300,liar\n"+
		"b,100,600,4,1,deepspeech2,320,300,honest\n"+
		"c,1000,1200,4,1,deepspeech2,320,600,liar\n")
	h := Honesty{Fraction: 0.5, Factor: 3, Seed: 1}
	liars := h.Liars(tr)
	if len(liars) != 1 {
		t.Fatalf("liars %v", liars)
	}
	for _, factor := range []float64{1, 3} {
		h.Factor, h.Tactic = factor, TacticTiny
		got, _ := MakeDishonest(tr, h)
		var ids []string
		var fillers int
		for k, j := range got.Jobs {
			ids = append(ids, j.ID)
			if k > 0 && j.Submit < got.Jobs[k-1].Submit {
				t.Errorf("factor %v: job %s submitted before the one listed ahead of it", factor, j.ID)
			}
			if j.Filler {
				fillers++
				if j.User != liars[0] || j.Duration != 120 || j.Dishonest || j.ClaimScale != 0 {
					t.Errorf("factor %v: filler %+v: want an honest 2-minute job of the liar", factor, j)
				}
			}
		}
		if want := 2 * 2; liars[0] == "liar" && fillers != want || liars[0] == "honest" && fillers != 2 {
			t.Errorf("factor %v: %d fillers in %v", factor, fillers, ids)
		}
	}
	h.Factor, h.Tactic = 3, TacticPreempt
	got, _ := MakeDishonest(tr, h)
	for _, j := range got.Jobs {
		if j.ClaimPreempt != (j.User == liars[0]) {
			t.Errorf("job %s of %s: ClaimPreempt %v", j.ID, j.User, j.ClaimPreempt)
		}
	}
}
