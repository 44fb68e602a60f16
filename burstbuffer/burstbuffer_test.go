package burstbuffer

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseDirective(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		want    Request
		wantErr bool
	}{
		{name: "empty", text: "", want: Request{}},
		// Captured from the test cluster's GET /jobs (burst_buffer field).
		{name: "lua real", text: "#BB_LUA pool=nvme capacity=600G",
			want: Request{Plugin: "lua", Pool: "nvme", Bytes: 600 << 30}},
		{name: "datawarp", text: "#DW jobdw capacity=10GB access_mode=striped type=scratch",
			want: Request{Plugin: "datawarp", Bytes: 10 << 30}},
		{name: "two lines summed, first pool wins",
			text: "#BB_LUA pool=a capacity=1T\n#BB_LUA pool=b capacity=512G\n",
			want: Request{Plugin: "lua", Pool: "a", Bytes: 1<<40 + 512<<30}},
		{name: "stage directives ignored",
			text: "#DW jobdw capacity=1G\n#DW stage_in source=/a destination=$DW_JOB_STRIPED/a type=file",
			want: Request{Plugin: "datawarp", Bytes: 1 << 30}},
		{name: "not a directive", text: "#SBATCH -N 1\n#BBX capacity=1G", want: Request{}},
		{name: "generic", text: "#BB create_persistent name=x capacity=1TB",
			want: Request{Plugin: "generic", Bytes: 1 << 40}},
		{name: "bad size", text: "#BB_LUA capacity=lots", wantErr: true},
		{name: "bad unit", text: "#BB_LUA capacity=3X", wantErr: true},
		{name: "mixed plugins", text: "#BB_LUA capacity=1G\n#DW jobdw capacity=1G", wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseDirective(tc.text)
			if (err != nil) != tc.wantErr {
				t.Fatalf("ParseDirective(%q) error = %v, wantErr %v", tc.text, err, tc.wantErr)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("ParseDirective(%q) mismatch (-want +got):\n%s", tc.text, diff)
			}
		})
	}
}

func TestParseSize(t *testing.T) {
	tests := []struct {
		in      string
		want    int64
		wantErr bool
	}{
		{in: "600G", want: 600 << 30},
		{in: "600GiB", want: 600 << 30},
		{in: "600gb", want: 600 << 30},
		{in: "1.5T", want: 3 << 39},
		{in: "4096", want: 4096},
		{in: "7K", want: 7 << 10},
		{in: "2P", want: 2 << 50},
		{in: " 1M ", want: 1 << 20},
		{in: "", wantErr: true},
		{in: "G", wantErr: true},
		{in: "1..2G", wantErr: true},
		{in: "5Q", wantErr: true},
		{in: "99999999P", wantErr: true},
	}
	for _, tc := range tests {
		got, err := ParseSize(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("ParseSize(%q) error = %v, wantErr %v", tc.in, err, tc.wantErr)
			continue
		}
		if got != tc.want {
			t.Errorf("ParseSize(%q) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestFormatSizeRoundTrip(t *testing.T) {
	for _, b := range []int64{0, 1, 1023, 1 << 10, 600 << 30, 1 << 40, 3 << 39, 5 << 50} {
		s := FormatSize(b)
		got, err := ParseSize(s)
		if err != nil || got != b {
			t.Errorf("ParseSize(FormatSize(%d)=%q) = %d, %v", b, s, got, err)
		}
	}
	if got := FormatSize(600 << 30); got != "600G" {
		t.Errorf("FormatSize(600GiB) = %q, want 600G", got)
	}
}

func FuzzParseDirective(f *testing.F) {
	f.Add("#BB_LUA pool=nvme capacity=600G")
	f.Add("#DW jobdw capacity=10GB\n#DW stage_in")
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseDirective(s)
		if err == nil && r.Bytes < 0 {
			t.Errorf("ParseDirective(%q) gave negative bytes %d", s, r.Bytes)
		}
	})
}

// Sizes as users write them in hints and flags (also used by the planner).
func TestParseSizeHintForms(t *testing.T) {
	tests := map[string]int64{"512": 512, "1K": 1024, "1.5G": 3 << 29, "2T": 2 << 40, "500GB": 500 << 30, "4GiB": 4 << 30, "7m": 7 << 20}
	for in, want := range tests {
		got, err := ParseSize(in)
		if err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"", "G", "-1G", "1X", "inf", "1e300T"} {
		if _, err := ParseSize(bad); err == nil {
			t.Errorf("ParseSize(%q) accepted, want error", bad)
		}
	}
}

// Sizes that do not fit in int64 are errors, never negative numbers.
func TestParseSizeOverflow(t *testing.T) {
	for _, s := range []string{"8192P", "8192PiB", "9223372036854775808", "16384P", "99999999999P"} {
		if n, err := ParseSize(s); err == nil {
			t.Errorf("ParseSize(%q) = %d, want an error", s, n)
		}
	}
	if n, err := ParseSize("8191P"); err != nil || n != 8191<<50 {
		t.Errorf("ParseSize(8191P) = %d, %v", n, err)
	}
}

// Capacities summed over several lines never wrap around.
func TestDirectiveCapacitySumOverflow(t *testing.T) {
	d := "#BB_LUA pool=nvme capacity=8000P\n#BB_LUA capacity=8000P\n"
	if r, err := ParseDirective(d); err == nil {
		t.Errorf("ParseDirective summed to %d bytes, want an error", r.Bytes)
	}
}

func TestParseShowBurst(t *testing.T) {
	// Slurm 24.11's burst_buffer/lua, as the test cluster prints it.
	real := `Name=lua DefaultPool=(null) Granularity=1 TotalSpace=0 FreeSpace=0 UsedSpace=0
  PoolName[0]=nvme Granularity=1GiB TotalSpace=1TiB FreeSpace=1012GiB UsedSpace=12GiB
  PoolName[1]=ssd Granularity=4MiB TotalSpace=100GiB FreeSpace=100GiB UsedSpace=0
  Flags=DisablePersistent
  PollInterval=15
`
	tests := []struct {
		name    string
		in      string
		want    []Pool
		wantErr bool
	}{
		{"two pools", real, []Pool{
			{Name: "nvme", Granularity: 1 << 30, Total: 1 << 40, Free: 1012 << 30, Used: 12 << 30},
			{Name: "ssd", Granularity: 4 << 20, Total: 100 << 30, Free: 100 << 30},
		}, false},
		{"no pools (datawarp, or none configured)", "Name=lua DefaultPool=(null) Granularity=1 TotalSpace=0\n", nil, false},
		{"used from free", "  PoolName[0]=a TotalSpace=10GiB FreeSpace=4GiB\n", []Pool{{Name: "a", Total: 10 << 30, Free: 4 << 30, Used: 6 << 30}}, false},
		{"a bad size names the line", "  PoolName[0]=a TotalSpace=lots\n", nil, true},
		{"no total", "  PoolName[0]=a Granularity=1GiB\n", nil, true},
	}
	for _, tc := range tests {
		got, err := ParseShowBurst(tc.in)
		if (err != nil) != tc.wantErr {
			t.Errorf("%s: error %v, want error %v", tc.name, err, tc.wantErr)
			continue
		}
		if diff := cmp.Diff(tc.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.name, diff)
		}
	}
}
