package jobenv

import (
	"errors"
	"fmt"
	"github.com/strata-hpc/strata/cmd/strata/internal/inputerr"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/strata-hpc/strata/decide"
	"github.com/strata-hpc/strata/slurm"
)

// Roles is the role of every task of a PS job whose servers Strata wrote
// as tasks (docs/hints.md, "Parameter-server jobs"): on each node of the
// allocation, the first GPUs-per-node local ranks are workers, one GPU
// each, the others servers; ranks run in Slurm's block order (srun
// --distribution=block).
type Roles struct {
	Workers, Servers int
	// Tasks lists every task by rank.
	Tasks []Task
	// Addrs is each server's host:port, by server index.
	Addrs []string
}

// Task is one rank's role.
type Task struct {
	Rank  int
	Node  string
	Role  string // "worker" or "server"
	Index int    // among the tasks of its role
	GPU   int    // a worker's GPU among its node's (its local worker index); -1 for a server
	Port  int    // a server's port; 0 for a worker
}

// LayoutError says why a job's tasks do not hold its decision's workers and
// servers: a layout that cannot be launched is input the user must fix.
type LayoutError = inputerr.Error

// layoutError is the LayoutError of msg.
func layoutError(msg string) error { return &LayoutError{Err: errors.New("multi-prog: " + msg)} }

// Layout assigns the roles of decision a over the job's allocation, read
// from Slurm's job environment (SLURM_JOB_NODELIST, SLURM_TASKS_PER_NODE);
// servers listen on basePort + their index.
func Layout(a decide.Written, getenv func(string) string, basePort int) (Roles, error) {
	nodes, err := slurm.ExpandHostlist(getenv("SLURM_JOB_NODELIST"))
	if err != nil || len(nodes) == 0 {
		return Roles{}, layoutError(fmt.Sprintf("SLURM_JOB_NODELIST=%q names no nodes: run inside the job", getenv("SLURM_JOB_NODELIST")))
	}
	per, err := tasksPerNode(getenv("SLURM_TASKS_PER_NODE"), len(nodes))
	if err != nil {
		return Roles{}, layoutError(err.Error())
	}
	if a.Workers < 1 || a.Workers%len(nodes) != 0 {
		return Roles{}, layoutError(fmt.Sprintf("%d workers do not divide over %d nodes", a.Workers, len(nodes)))
	}
	gpn, total := a.Workers/len(nodes), 0
	for _, t := range per {
		total += t
	}
	if total != a.Workers+a.PS {
		return Roles{}, layoutError(fmt.Sprintf("the job has %d tasks (SLURM_TASKS_PER_NODE=%s), want %d workers + %d servers: "+
			"Strata has not written its servers as tasks (yet)", total, getenv("SLURM_TASKS_PER_NODE"), a.Workers, a.PS))
	}
	r := Roles{Workers: a.Workers, Servers: a.PS}
	rank, w, s := 0, 0, 0
	for k, t := range per {
		if t < gpn {
			return Roles{}, layoutError(fmt.Sprintf("node %s has %d tasks, fewer than its %d workers", nodes[k], t, gpn))
		}
		for l := range t {
			task := Task{Rank: rank, Node: nodes[k], Role: "worker", Index: w, GPU: l}
			if l < gpn {
				w++
			} else {
				task.Role, task.Index, task.GPU, task.Port = "server", s, -1, basePort+s
				r.Addrs = append(r.Addrs, nodes[k]+":"+strconv.Itoa(task.Port))
				s++
			}
			r.Tasks = append(r.Tasks, task)
			rank++
		}
	}
	return r, nil
}

// tasksPerNode reads SLURM_TASKS_PER_NODE ("5(x2)", "3,2(x3)") for n nodes.
func tasksPerNode(s string, n int) ([]int, error) {
	var out []int
	for _, item := range strings.Split(s, ",") {
		num, rep := item, 1
		if i := strings.Index(item, "(x"); i >= 0 && strings.HasSuffix(item, ")") {
			r, err := strconv.Atoi(item[i+2 : len(item)-1])
			if err != nil || r < 1 {
				return nil, fmt.Errorf("SLURM_TASKS_PER_NODE=%q: bad repeat %q", s, item)
			}
			num, rep = item[:i], r
		}
		t, err := strconv.Atoi(num)
		if err != nil || t < 0 {
			return nil, fmt.Errorf("SLURM_TASKS_PER_NODE=%q: bad count %q", s, item)
		}
		for range rep {
			out = append(out, t)
		}
	}
	if len(out) != n {
		return nil, fmt.Errorf("SLURM_TASKS_PER_NODE=%q gives %d nodes, the job has %d", s, len(out), n)
	}
	return out, nil
}

// WriteMultiProg writes srun's --multi-prog file for the roles: one line
// per rank that exports STRATA_ROLE, STRATA_ROLE_INDEX and, for a worker,
// STRATA_LOCAL_GPU with CUDA_VISIBLE_DEVICES narrowed to that one of the
// node's GPUs (servers get none) or, for a server, STRATA_PS_PORT, then
// runs worker or server (a command line; it may not hold a single quote).
func WriteMultiProg(w io.Writer, r Roles, worker, server string) error {
	if strings.ContainsRune(worker, '\'') || strings.ContainsRune(server, '\'') {
		return layoutError("the worker and server commands may not contain a single quote (the file runs each in bash -c '...')")
	}
	if strings.TrimSpace(worker) == "" || strings.TrimSpace(server) == "" {
		return layoutError("give the worker command (and the server command, when it differs)")
	}
	for _, t := range r.Tasks {
		var line string
		if t.Role == "worker" {
			// The l-th of the GPUs Slurm gave the task's node (its
			// CUDA_VISIBLE_DEVICES), else index l.
			line = fmt.Sprintf("%d bash -c 'export STRATA_ROLE=worker STRATA_ROLE_INDEX=%d STRATA_LOCAL_GPU=%d; "+
				"g=(${CUDA_VISIBLE_DEVICES//,/ }); export CUDA_VISIBLE_DEVICES=${g[%d]:-%d}; exec %s'\n",
				t.Rank, t.Index, t.GPU, t.GPU, t.GPU, worker)
		} else {
			line = fmt.Sprintf("%d bash -c 'export STRATA_ROLE=server STRATA_ROLE_INDEX=%d STRATA_PS_PORT=%d CUDA_VISIBLE_DEVICES=; exec %s'\n",
				t.Rank, t.Index, t.Port, server)
		}
		if _, err := io.WriteString(w, line); err != nil {
			return fmt.Errorf("write multi-prog: %w", err)
		}
	}
	return nil
}

// WriteRoleExports prints the exports that go with a multi-prog file: the
// tasks, the servers' addresses and the file's path.
func WriteRoleExports(w io.Writer, r Roles, path string) error {
	if strings.ContainsAny(path, "'\n") {
		return errors.New("multi-prog: the file's path may not contain a quote or a newline")
	}
	_, err := fmt.Fprintf(w, "export STRATA_TASKS=%d\nexport STRATA_PS_ADDRS=%s\nexport STRATA_MULTI_PROG='%s'\n",
		len(r.Tasks), strings.Join(r.Addrs, ","), path)
	return err
}

// MultiProgFile lays out decision a over the job's allocation, writes the
// --multi-prog file at path and prints the exports that go with it to w.
func MultiProgFile(w io.Writer, path string, a decide.Written, getenv func(string) string, worker, server string, basePort int) error {
	r, err := Layout(a, getenv, basePort)
	if err != nil {
		return err
	}
	var b strings.Builder
	if err := WriteMultiProg(&b, r, worker, server); err != nil {
		return err
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return fmt.Errorf("multi-prog: %w", err)
	}
	return WriteRoleExports(w, r, path)
}
