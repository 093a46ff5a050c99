package audience

import "testing"

// TestPersonaLocationCodeIN: "IN" is both India's ISO code and Indiana's
// postal code, and also the filler word "in". docs/audiences.md (Locations)
// says country names and ISO codes, and US state names and postal codes,
// are interchangeable; the code "IN" must not vanish as a filler word (a
// persona for Indiana matched, and charged credits for, every US contact).
func TestPersonaLocationCodeIN(t *testing.T) {
	for _, tt := range []struct {
		name    string
		where   Location
		country string
		state   string
		want    bool
	}{
		{"region IN does not match California", Location{Country: "US", Region: "IN"}, "US", "CA", false},
		{"region IN matches the postal code", Location{Country: "US", Region: "IN"}, "US", "IN", true},
		{"region IN matches the state name", Location{Country: "US", Region: "IN"}, "United States", "Indiana", true},
		{"region Indiana matches the postal code", Location{Country: "US", Region: "Indiana"}, "US", "IN", true},
		{"country IN matches India", Location{Country: "IN"}, "India", "", true},
		{"country India matches the code", Location{Country: "India"}, "IN", "Maharashtra", true},
		{"country IN does not match the US", Location{Country: "IN"}, "US", "IN", false},
		{"filler words still ignored", Location{Country: "The Netherlands"}, "netherlands", "", true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			icp := Persona{Criteria: Criteria{Name: "Locals", Locations: []Location{tt.where}}}
			if err := CheckPersona(&icp); err != nil {
				t.Fatalf("persona with location %+v refused: %v", tt.where, err)
			}
			_, ok := NewMatcher(icp.Criteria).Match(contact("Engineer", tt.country, tt.state))
			if ok != tt.want {
				t.Errorf("persona location %+v, contact in %q/%q: match = %v, want %v", tt.where, tt.country, tt.state, ok, tt.want)
			}
		})
	}
}
