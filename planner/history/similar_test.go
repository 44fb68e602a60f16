package history

import "testing"

// atLeast agrees with ratio on every pair it prunes.
func TestAtLeastAgreesWithRatio(t *testing.T) {
	words := []string{"", "a", "ab", "resnet50-train", "resnet50-eval", "bert", "train-bert", "xyz", "job-17-train", "job-71-train"}
	for _, a := range words {
		for _, b := range words {
			for _, m := range []float64{0, 0.3, 0.6, 0.9, 1} {
				if _, got := atLeast(a, b, m); got != (ratio(a, b) >= m) {
					t.Errorf("atLeast(%q, %q, %v) = %v, ratio %v", a, b, m, got, ratio(a, b))
				}
			}
		}
	}
}
