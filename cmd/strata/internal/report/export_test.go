package report

import (
	"bytes"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/strata-hpc/strata/db"
)

// TestExportsNeutraliseJobNames (issue 23.9): a job name starting with '='
// reaches no CSV as a formula (the CLI's --csv and the web's
// /api/energy?format=csv share EnergyCSV), and a name with a newline or a
// '|' forges no row of -P output or of the table.
func TestExportsNeutraliseJobNames(t *testing.T) {
	rows := EnergyOutputs([]db.EnergyRow{
		{Job: 7, JobName: "=HYPERLINK(\"http://evil\",\"x\")", User: "@alice", Jobs: 1, GPUSeconds: 3600},
		{Job: 8, JobName: "ok\n999|forged|1", User: "bob", Jobs: 1, GPUSeconds: 3600},
	}, EnergyFactors{})
	cols, err := SelectFields(EnergyFields(EnergyFactors{}, time.UTC), "Job,JobName,User,GPUHours", nil)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name  string
		write func(*bytes.Buffer) error
		want  string
	}{
		{"web and --csv", func(b *bytes.Buffer) error {
			return EnergyCSV(b, rows, []db.ReportDim{db.DimJob}, EnergyFactors{}, time.UTC)
		},
			"JobID,JobName,User,Jobs,GPUh,Energy(kWh),MeanUtil(%),IdleEnergy(kWh),Idle(%)\n" +
				"7,\"'=HYPERLINK(\"\"http://evil\"\",\"\"x\"\")\",'@alice,1,1.00,0.000,0.0,0.000,0.0\n" +
				"8,\"ok\n999|forged|1\",bob,1,1.00,0.000,0.0,0.000,0.0\n"},
		{"-P", func(b *bytes.Buffer) error { return WriteTable(b, cols, rows, OutputMode{Parsable: true}) },
			"JobID|JobName|User|GPUh\n7|=HYPERLINK(\"http://evil\",\"x\")|@alice|1.00\n8|ok\\n999/forged/1|bob|1.00\n"},
		{"table", func(b *bytes.Buffer) error { return WriteTable(b, cols, rows[1:], OutputMode{NoHeader: true}) },
			"8 ok\\n999|forged|1 bob 1.00\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tt.write(&b); err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tt.want, b.String()); diff != "" {
				t.Errorf("output (-want +got):\n%s", diff)
			}
		})
	}
}
