package explain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// explain says what a PS job's update asked Slurm to allocate for its
// servers (issue 24.1), from the request body it records.
func TestServerTasksWords(t *testing.T) {
	tests := []struct{ name, body, want string }{
		{"servers as tasks", `{"tasks":10,"tasks_per_node":5,"cpus_per_task":2,"memory_per_node":{"set":true,"number":17311},"tres_per_node":"gres/gpu:4"}`,
			"written as 10 task(s), 8 worker(s) and 2 server(s), 5 per node, 2 CPU(s) each, 17311 MB per node: what the plan reserved; `strata env --multi-prog` gives each task its role"},
		{"no tasks", `{"tres_per_node":"gres/gpu:4"}`, ""},
		{"no body", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, serverTasksWords(tt.body, 8, 2)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}
