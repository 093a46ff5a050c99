package event

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

var hashtagPattern = regexp.MustCompile(`^#?[\p{L}\p{N}_]{1,100}$`)

// Check normalizes an event a caller submits, in place (trims text, fills
// defaults and empty lists), and reports every problem by the API's field
// name (VALIDATION_FAILED). Server-owned fields (id, organization, creator,
// timestamps, version, linkedCampaigns) are not checked here.
func Check(e *Event) error {
	var p gifting.Problems
	e.Name = strings.TrimSpace(e.Name)
	switch {
	case e.Name == "":
		p.Add("name", "is required")
	case gifting.TooLong(e.Name, maxName):
		p.Add("name", "must be at most "+strconv.Itoa(maxName)+" characters")
	}
	e.Type = strings.TrimSpace(e.Type)
	if e.Type == "" {
		p.Add("type", "is required; one of "+strings.Join(Types, ", "))
	} else if !slices.Contains(Types, e.Type) {
		p.Add("type", "must be one of "+strings.Join(Types, ", "))
	}
	if e.Status = strings.TrimSpace(e.Status); e.Status == "" {
		e.Status = DefaultStatus
	} else if !slices.Contains(Statuses, e.Status) {
		p.Add("status", "must be one of "+strings.Join(Statuses, ", "))
	}
	if e.Visibility = strings.TrimSpace(e.Visibility); e.Visibility == "" {
		e.Visibility = DefaultVisibility
	} else if !slices.Contains(Visibilities, e.Visibility) {
		p.Add("visibility", "must be one of "+strings.Join(Visibilities, ", "))
	}
	checkDates(&p, &e.EventDates)
	checkLocation(&p, &e.Location)
	checkTexts(&p, e)
	for _, f := range []struct {
		name string
		v    *[]string
	}{
		{"topics", &e.Topics}, {"targetAudience", &e.TargetAudience}, {"targetAccounts", &e.TargetAccounts}, {"tags", &e.Tags},
	} {
		*f.v = gifting.CleanStrings(&p, f.name, *f.v, maxList, maxShort)
	}
	if e.ExpectedAttendees < 0 {
		p.Add("expectedAttendees", "must be zero or more")
	}
	if len(e.Speakers) > maxSpeakers {
		p.Add("speakers", "must hold at most "+strconv.Itoa(maxSpeakers)+" speakers")
	}
	for i := range e.Speakers {
		checkSpeaker(&p, &e.Speakers[i], "speakers["+strconv.Itoa(i)+"]")
	}
	if e.Speakers == nil {
		e.Speakers = []Speaker{}
	}
	if e.LinkedCampaigns == nil {
		e.LinkedCampaigns = []string{}
	}
	return p.Err()
}

// checkTexts trims the free texts and URLs and bounds them.
func checkTexts(p *gifting.Problems, e *Event) {
	for _, f := range []struct {
		name string
		v    *string
		max  int
	}{
		{"description", &e.Description, maxText}, {"host", &e.Host, maxShort},
		{"agenda", &e.Agenda, maxText}, {"focus", &e.Focus, maxShort},
		{"eventUrl", &e.EventURL, maxURL}, {"banner", &e.Banner, maxURL}, {"hashtag", &e.Hashtag, 101},
	} {
		*f.v = strings.TrimSpace(*f.v)
		p.AtMost(f.name, *f.v, f.max)
	}
	for _, f := range []struct{ name, v string }{{"eventUrl", e.EventURL}, {"banner", e.Banner}} {
		if f.v != "" && !gifting.ValidURL(f.v) {
			p.Add(f.name, "must be an http(s) URL")
		}
	}
	if e.Hashtag != "" && !hashtagPattern.MatchString(e.Hashtag) {
		p.Add("hashtag", "must be one word of letters, digits or underscores, optionally starting with #")
	}
}

// checkDates requires both dates, start not after end, and keeps them in
// UTC to the millisecond, the precision of every stored time.
func checkDates(p *gifting.Problems, d *Dates) {
	switch {
	case d.Start.IsZero() && d.End.IsZero():
		p.Add("eventDates", "is required: {start, end} as ISO 8601 date-times")
	case d.Start.IsZero():
		p.Add("eventDates.start", "is required")
	case d.End.IsZero():
		p.Add("eventDates.end", "is required")
	case d.Start.After(d.End):
		p.Add("eventDates", "start must not be after end")
	}
	d.Start = d.Start.UTC().Truncate(time.Millisecond)
	d.End = d.End.UTC().Truncate(time.Millisecond)
}

// checkLocation requires what each kind of location needs to be found: a
// venue or address for a physical event, a URL for a virtual one, both for
// a hybrid one.
func checkLocation(p *gifting.Problems, l *Location) {
	l.Type, l.Address = strings.TrimSpace(l.Type), strings.TrimSpace(l.Address)
	l.OnlineURL, l.VenueName = strings.TrimSpace(l.OnlineURL), strings.TrimSpace(l.VenueName)
	if l.Type == "" {
		p.Add("location.type", "is required; one of "+strings.Join(LocationTypes, ", "))
		return
	}
	if !slices.Contains(LocationTypes, l.Type) {
		p.Add("location.type", "must be one of "+strings.Join(LocationTypes, ", "))
		return
	}
	if gifting.TooLong(l.Address, maxShort) || gifting.TooLong(l.VenueName, maxShort) {
		p.Add("location", "address and venueName must be at most "+strconv.Itoa(maxShort)+" characters")
	}
	if l.OnlineURL != "" && !gifting.ValidURL(l.OnlineURL) {
		p.Add("location.onlineUrl", "must be an http(s) URL")
	}
	if l.Type != "virtual" && l.Address == "" && l.VenueName == "" {
		p.Add("location.address", "a "+l.Type+" event needs an address or a venueName")
	}
	if l.Type != "physical" && l.OnlineURL == "" {
		p.Add("location.onlineUrl", "a "+l.Type+" event needs an onlineUrl")
	}
}

func checkSpeaker(p *gifting.Problems, s *Speaker, field string) {
	s.FullName, s.Role, s.Company = strings.TrimSpace(s.FullName), strings.TrimSpace(s.Role), strings.TrimSpace(s.Company)
	s.PhotoURL, s.Bio = strings.TrimSpace(s.PhotoURL), strings.TrimSpace(s.Bio)
	if s.FullName == "" {
		p.Add(field+".fullName", "is required")
	}
	if gifting.TooLong(s.FullName, maxName) || gifting.TooLong(s.Role, maxName) || gifting.TooLong(s.Company, maxName) {
		p.Add(field, "fullName, role and company must be at most "+strconv.Itoa(maxName)+" characters")
	}
	p.AtMost(field+".bio", s.Bio, maxText)
	if s.PhotoURL != "" && !gifting.ValidURL(s.PhotoURL) {
		p.Add(field+".photoUrl", "must be an http(s) URL")
	}
}

// CampaignIDs trims, de-duplicates and bounds a list of campaign ids a
// caller gives in field (VALIDATION_FAILED naming it); required says
// whether it may be empty.
func CampaignIDs(ids []string, field string, required bool) ([]string, error) {
	var p gifting.Problems
	out := make([]string, 0, min(len(ids), MaxCampaigns+1))
	for _, id := range ids {
		if len(out) > MaxCampaigns {
			break // too many already; the rest would cost the square of the list
		}
		id = strings.TrimSpace(id)
		if id == "" {
			p.Add(field, "entries must not be blank")
			continue
		}
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	switch {
	case required && len(ids) == 0:
		p.Add(field, "is required: at least one campaign id")
	case len(out) > MaxCampaigns:
		p.Add(field, "must hold at most "+strconv.Itoa(MaxCampaigns)+" campaign ids")
	}
	return out, p.Err()
}
