package sim

import (
	"math"
	"testing"
)

func TestParsePower(t *testing.T) {
	tests := []struct {
		in      string
		typ     string
		want    GPUPower
		wantErr bool
	}{
		{in: "T4=12:70", typ: "t4", want: GPUPower{IdleW: 12, BusyW: 70, Source: "configured"}},
		{in: "a100=0:400", typ: "a100", want: GPUPower{IdleW: 0, BusyW: 400, Source: "configured"}},
		{in: "t4=70:12", wantErr: true}, // idle above busy
		{in: "t4=-1:70", wantErr: true},
		{in: "t4:10:70", wantErr: true},
		{in: "=10:70", wantErr: true},
	}
	for _, tc := range tests {
		typ, got, err := ParsePower(tc.in)
		if (err != nil) != tc.wantErr || (err == nil && (typ != tc.typ || got != tc.want)) {
			t.Errorf("ParsePower(%q) = %q, %+v, %v", tc.in, typ, got, err)
		}
	}
}

func TestPowerModel(t *testing.T) {
	m := PowerModel{Overrides: map[string]GPUPower{"t4": {IdleW: 12, BusyW: 65}}}
	if got := m.For("T4"); got.IdleW != 12 || got.BusyW != 65 {
		t.Errorf("override not used: %+v", got)
	}
	if got := (PowerModel{}).For("t4"); got.IdleW != 10 || got.BusyW != 70 {
		t.Errorf("built-in T4 = %+v, want 10/70 W", got)
	}
	if got := (PowerModel{}).For("mystery"); got != unknownPower {
		t.Errorf("unknown type = %+v", got)
	}
	// 4 GPUs for 1 h, 2 of them busy all the time: 2 h × 70 W + 2 h × 10 W = 0.16 kWh.
	if got := energyKWh(GPUPower{IdleW: 10, BusyW: 70}, 4, 3600, 2*3600); math.Abs(got-0.16) > 1e-12 {
		t.Errorf("energy = %v kWh, want 0.16", got)
	}
	if len(PowerTable()) != len(defaultPower) {
		t.Errorf("power table lists %d of %d types", len(PowerTable()), len(defaultPower))
	}
}
