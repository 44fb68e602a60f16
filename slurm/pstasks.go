package slurm

import (
	"strings"

	"github.com/strata-hpc/strata/planner"
)

// psTasksUpdate writes a PS job's workers and servers as its tasks
// (planner.Decision.Tasks, docs/planner.md "Parameter servers"): GPUs per
// node (a per-job --gpus total becomes per node, so that every node holds
// its workers' GPUs), the node count, Tasks tasks with TasksPerNode on
// each node, CPUsPerTask CPUs each, and the memory per node of its workers
// and servers. All of it is written together when any part differs from
// the job's record; it reports whether it wrote anything.
func psTasksUpdate(u *JobUpdate, cur planner.Job, d planner.Decision) bool {
	nodes := max(1, d.NodeCount)
	same := cur.GPUsPerJob == 0 && cur.GPUsPerNode == d.GPUsPerNode && cur.Nodes == nodes &&
		max(1, cur.Tasks) == d.Tasks && cur.TasksPerNode == d.TasksPerNode &&
		(d.CPUsPerTask == 0 || cur.CPUsPerTask == d.CPUsPerTask) &&
		(d.MemoryPerNodeMB == 0 || cur.MemoryPerNodeMB == d.MemoryPerNodeMB)
	if same {
		return false
	}
	tpn := withGPUCount(cur.TRESPerNode, cur.GPUType, d.GPUsPerNode)
	u.TresPerNode = &tpn
	if cur.GPUsPerJob > 0 {
		rest := withoutGPU(cur.TRESPerJob) // "" clears it
		u.TresPerJob = &rest
	}
	u.MinimumNodes, u.MaximumNodes = nodes, nodes
	u.Tasks, u.TasksPerNode = d.Tasks, d.TasksPerNode
	if c := d.CPUsPerTask; c > 0 {
		u.CPUsPerTask, u.MinimumCPUs, u.MinimumCPUsPerNode = c, c*d.Tasks, c*d.TasksPerNode
	}
	if d.MemoryPerNodeMB > 0 {
		u.MemoryPerNodeMB = d.MemoryPerNodeMB
	}
	return true
}

// withoutGPU is a TRES string without its GPU item.
func withoutGPU(raw string) string {
	var items []string
	for _, item := range strings.Split(raw, ",") {
		item = strings.TrimSpace(item)
		if item == "" || item == "gres/gpu" || strings.HasPrefix(item, "gres/gpu:") || strings.HasPrefix(item, "gres/gpu=") {
			continue
		}
		items = append(items, item)
	}
	return strings.Join(items, ",")
}

// ExpandHostlist expands a Slurm host list such as "node[1-2,5]" (a job's
// SLURM_JOB_NODELIST) into node names, in Slurm's order.
func ExpandHostlist(s string) ([]string, error) { return expandHostlist(s) }
