package planner_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/strata-hpc/strata/planner"
	"github.com/strata-hpc/strata/planner/plannertest"
)

// basisPredictor times every job at an hour and says so.
type basisPredictor struct{}

func (basisPredictor) Predict(*planner.Job, int) (time.Duration, bool) { return time.Hour, true }
func (basisPredictor) Basis(j *planner.Job) string                     { return "timed by the test for " + j.User }

// TestDecisionSaysThePredictionsBasis: a job timed from history
// (duration_predicted) carries in its detail what the predictor says its
// answer rests on (planner.PredictionBasis); a hinted job does not.
func TestDecisionSaysThePredictionsBasis(t *testing.T) {
	user := func(j *planner.Job) { j.User = "carol" }
	s := plannertest.Cluster("basis", time.Date(2026, 11, 29, 0, 0, 0, 0, time.UTC)).Partition("gpu", true).
		Nodes("node", 1, 4, 16, 64000, "gpu", "a100").
		Running(1, 4, "node0001", time.Date(2026, 11, 28, 23, 0, 0, 0, time.UTC)).
		Pending(10, 2, "", user, plannertest.TimeLimit(4*time.Hour)).
		Pending(11, 2, "strata: model=resnet50 batch=64 iters=2000", user, plannertest.TimeLimit(4*time.Hour)).
		Build()
	p, err := planner.NewPolicy("smd", planner.Options{Predictor: basisPredictor{}})
	if err != nil {
		t.Fatal(err)
	}
	plan, err := p.Plan(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range plan.Decisions {
		predicted := slices.Contains(d.Reasons, planner.ReasonPredicted)
		said := strings.Contains(d.Detail, "timed by the test for carol")
		switch d.JobID {
		case 10:
			if !predicted || !said {
				t.Errorf("unhinted job: reasons %v detail %q: want duration_predicted and the basis", d.Reasons, d.Detail)
			}
		case 11:
			if predicted || said {
				t.Errorf("hinted job: reasons %v detail %q: want no basis", d.Reasons, d.Detail)
			}
		}
	}
}
