package explain

import (
	"encoding/json"
	"fmt"
)

// serverTasksWords says what a PS job's update asked Slurm to allocate
// for its workers and servers (docs/planner.md, "Parameter servers"),
// read from the request body: the tasks, per node, their CPUs and the
// memory per node. "" when the body writes no tasks.
func serverTasksWords(body string, workers, ps int) string {
	var b struct {
		Tasks        int `json:"tasks"`
		TasksPerNode int `json:"tasks_per_node"`
		CPUsPerTask  int `json:"cpus_per_task"`
		Memory       struct {
			Number int64 `json:"number"`
		} `json:"memory_per_node"`
	}
	if body == "" || json.Unmarshal([]byte(body), &b) != nil || b.Tasks == 0 {
		return ""
	}
	s := fmt.Sprintf("written as %d task(s), %d worker(s) and %d server(s)", b.Tasks, workers, ps)
	if b.TasksPerNode > 0 {
		s += fmt.Sprintf(", %d per node", b.TasksPerNode)
	}
	if b.CPUsPerTask > 0 {
		s += fmt.Sprintf(", %d CPU(s) each", b.CPUsPerTask)
	}
	if b.Memory.Number > 0 {
		s += fmt.Sprintf(", %d MB per node", b.Memory.Number)
	}
	return s + ": what the plan reserved; `strata env --multi-prog` gives each task its role"
}
