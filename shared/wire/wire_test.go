package wire_test

import (
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/wire"
)

func TestMarshalTimes(t *testing.T) {
	t.Parallel()
	type body struct {
		At    time.Time  `json:"at"`
		Maybe *time.Time `json:"maybe"`
		Name  string     `json:"name,omitempty"`
	}
	paris := time.FixedZone("CET", 3600)
	tests := []struct {
		name string
		in   body
		want string
	}{
		{"a whole second keeps three zeros", body{At: time.Date(2026, 11, 23, 9, 2, 0, 0, time.UTC)},
			`{"at":"2026-11-23T09:02:00.000Z","maybe":null}`},
		{"trailing zeros of the milliseconds stay", body{At: time.Date(2026, 11, 23, 9, 2, 0, 200_000_000, time.UTC)},
			`{"at":"2026-11-23T09:02:00.200Z","maybe":null}`},
		{"below a millisecond is cut, other zones turn UTC", body{At: time.Date(2026, 11, 23, 10, 2, 0, 460_999_999, paris), Name: "x"},
			`{"at":"2026-11-23T09:02:00.460Z","maybe":null,"name":"x"}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := wire.Marshal(tt.in)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tt.want {
				t.Errorf("Marshal = %s, want %s", b, tt.want)
			}
		})
	}
}
