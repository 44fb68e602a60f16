package jobenv

import (
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/decide"
)

// The roles of a PS job's tasks (issue 24.1): per node its workers first,
// then its servers, in Slurm's block order; a job whose tasks do not hold
// the decision is refused with why.
func TestLayout(t *testing.T) {
	tests := []struct {
		name      string
		a         decide.Written
		nodes     string
		perNode   string
		wantRoles []string // rank: node role index gpu/port
		wantAddrs []string
		wantErr   string
	}{
		{"one node, 4+4", decide.Written{Workers: 4, PS: 4}, "node1", "8", []string{
			"0 node1 worker 0 0", "1 node1 worker 1 1", "2 node1 worker 2 2", "3 node1 worker 3 3",
			"4 node1 server 0 29500", "5 node1 server 1 29501", "6 node1 server 2 29502", "7 node1 server 3 29503"},
			[]string{"node1:29500", "node1:29501", "node1:29502", "node1:29503"}, ""},
		{"two nodes, 8+2", decide.Written{Workers: 8, PS: 2}, "node[1-2]", "5(x2)", []string{
			"0 node1 worker 0 0", "1 node1 worker 1 1", "2 node1 worker 2 2", "3 node1 worker 3 3", "4 node1 server 0 29500",
			"5 node2 worker 4 0", "6 node2 worker 5 1", "7 node2 worker 6 2", "8 node2 worker 7 3", "9 node2 server 1 29501"},
			[]string{"node1:29500", "node2:29501"}, ""},
		{"servers not written yet", decide.Written{Workers: 4, PS: 4}, "node1", "1", nil, nil, "the job has 1 tasks"},
		{"a node short of workers", decide.Written{Workers: 8, PS: 2}, "node[1-2]", "7,3", nil, nil, "node node2 has 3 tasks, fewer than its 4 workers"},
		{"tasks per node for other nodes", decide.Written{Workers: 8, PS: 2}, "node[1-2]", "5(x3)", nil, nil, "gives 3 nodes, the job has 2"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := map[string]string{"SLURM_JOB_NODELIST": tt.nodes, "SLURM_TASKS_PER_NODE": tt.perNode}
			r, err := Layout(tt.a, func(k string) string { return env[k] }, 29500)
			if tt.wantErr != "" {
				var le *LayoutError
				if !errors.As(err, &le) || !strings.Contains(err.Error(), tt.wantErr) || le.ExitCode() != 2 {
					t.Fatalf("error %v, want a layout error with %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, task := range r.Tasks {
				n := task.GPU
				if task.Role == "server" {
					n = task.Port
				}
				got = append(got, strings.Join([]string{itoa(task.Rank), task.Node, task.Role, itoa(task.Index), itoa(n)}, " "))
			}
			if diff := cmp.Diff(tt.wantRoles, got); diff != "" {
				t.Errorf("roles (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.wantAddrs, r.Addrs); diff != "" {
				t.Errorf("addresses (-want +got):\n%s", diff)
			}
		})
	}
}

func itoa(n int) string { return strconv.Itoa(n) }

func TestWriteMultiProg(t *testing.T) {
	env := map[string]string{"SLURM_JOB_NODELIST": "node1", "SLURM_TASKS_PER_NODE": "3"}
	r, err := Layout(decide.Written{Workers: 2, PS: 1}, func(k string) string { return env[k] }, 7000)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := WriteMultiProg(&b, r, "./train --epochs 2", "./ps"); err != nil {
		t.Fatal(err)
	}
	want := "0 bash -c 'export STRATA_ROLE=worker STRATA_ROLE_INDEX=0 STRATA_LOCAL_GPU=0; g=(${CUDA_VISIBLE_DEVICES//,/ }); export CUDA_VISIBLE_DEVICES=${g[0]:-0}; exec ./train --epochs 2'\n" +
		"1 bash -c 'export STRATA_ROLE=worker STRATA_ROLE_INDEX=1 STRATA_LOCAL_GPU=1; g=(${CUDA_VISIBLE_DEVICES//,/ }); export CUDA_VISIBLE_DEVICES=${g[1]:-1}; exec ./train --epochs 2'\n" +
		"2 bash -c 'export STRATA_ROLE=server STRATA_ROLE_INDEX=0 STRATA_PS_PORT=7000 CUDA_VISIBLE_DEVICES=; exec ./ps'\n"
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("file (-want +got):\n%s", diff)
	}
	if err := WriteMultiProg(&b, r, "echo 'x'", "./ps"); err == nil {
		t.Error("a single quote in the command was accepted")
	}
}
