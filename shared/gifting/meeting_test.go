package gifting

import (
	"strings"
	"testing"
)

func TestSetMeeting(t *testing.T) {
	long := "https://cal.example/" + strings.Repeat("a", MaxURLLength)
	for _, tc := range []struct {
		url, want, problem string
	}{
		{"  https://calendly.com/ada/30min  ", "https://calendly.com/ada/30min", ""},
		{"https://app.hubspot.com/meetings/ada?embed=true#top", "https://app.hubspot.com/meetings/ada?embed=true#top", ""},
		{"", "", ""}, // takes the meeting away
		{"http://calendly.com/ada", "", "must be an https URL"},
		{"javascript:alert(1)", "", "must be an https URL"},
		{"//evil.example/x", "", "must be an https URL"},
		{"https://user:pw@evil.example/", "", "must be an https URL"},
		{"https://cal.example/a b", "", "must be an https URL"},
		{long, "", "must be at most"},
	} {
		var p Problems
		got := SetMeeting(&p, "campaignData.meeting", Meeting{URL: tc.url, Required: true})
		msg := p["campaignData.meeting.url"]
		switch {
		case tc.problem != "" && !strings.Contains(msg, tc.problem):
			t.Errorf("%.40q: problem %q, want %q", tc.url, msg, tc.problem)
		case tc.problem == "" && msg != "":
			t.Errorf("%.40q: refused (%s)", tc.url, msg)
		case tc.problem == "" && tc.want == "" && got != nil:
			t.Errorf("%q: kept %+v, want the meeting taken away", tc.url, got)
		case tc.problem == "" && tc.want != "" && (got == nil || got.URL != tc.want || !got.Required):
			t.Errorf("%q: %+v, want %q required", tc.url, got, tc.want)
		}
	}
}

func TestEffectiveMeeting(t *testing.T) {
	own, tmpl := &Meeting{URL: "https://a.example/"}, &Meeting{URL: "https://b.example/", Required: true}
	if EffectiveMeeting(own, tmpl) != own || EffectiveMeeting(nil, tmpl) != tmpl || EffectiveMeeting(nil, nil) != nil {
		t.Error("the campaign's own meeting must win over its template's, and none means none")
	}
}
