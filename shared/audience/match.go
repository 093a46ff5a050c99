package audience

import (
	"slices"
	"strings"
	"unicode"
)

// This file holds the rules that decide which contacts belong to the
// audience of an ICP persona. They are documented in docs/audiences.md
// (Matching); keep the two in step.
//
// Text is compared as words: lower-cased, split on anything that is not a
// letter or digit, with a few abbreviations spelled out ("sr" → senior,
// "vice president" → vp) and filler words ("of", "and", "the", "for", "&")
// dropped. A phrase matches a text when its words appear in it
// consecutively, so "VP Sales" matches "Vice President of Sales, EMEA" but
// "CTO" does not match "Director".

// Seniority levels a persona can ask for, from the most senior down. A
// contact has exactly one: the first level whose keywords its job title
// holds, or individual_contributor when it holds none (and none at all when
// it has no job title).
var SeniorityLevels = []string{"c_suite", "vp", "head", "director", "manager", "senior", "individual_contributor", "entry"}

// seniorityKeywords are the title phrases of each level. "vice president"
// is normalized to "vp" before they are looked for, so "president" only
// finds presidents.
var seniorityKeywords = map[string][]string{
	"c_suite": {"chief", "ceo", "cto", "cfo", "coo", "cmo", "cio", "ciso", "cro", "cpo", "chro", "cdo",
		"president", "founder", "cofounder", "owner", "managing director", "chairman", "chairwoman"},
	"vp":       {"vp", "svp", "evp", "avp"},
	"head":     {"head"},
	"director": {"director"},
	"manager":  {"manager", "team lead", "supervisor"},
	"senior":   {"senior", "principal", "staff", "lead"},
	"entry":    {"junior", "intern", "trainee", "graduate", "apprentice", "entry level", "associate", "assistant"},
}

// seniorityAliases maps what a persona may say to a level.
var seniorityAliases = map[string]string{
	"c suite": "c_suite", "c level": "c_suite", "cxo": "c_suite", "executive": "c_suite", "chief": "c_suite",
	"vp": "vp", "vice president": "vp", "svp": "vp", "evp": "vp",
	"head": "head", "head of": "head",
	"director": "director", "manager": "manager",
	"senior": "senior", "ic": "individual_contributor", "individual contributor": "individual_contributor",
	"mid": "individual_contributor", "mid level": "individual_contributor",
	"entry": "entry", "entry level": "entry", "junior": "entry",
}

// Departments a job title can be recognised as belonging to, with their
// title keywords. A title may belong to several ("Product Marketing
// Manager" is product and marketing). A persona department outside this
// vocabulary is looked for as a phrase in the job title instead.
var departmentKeywords = map[string][]string{
	"engineering": {"engineer", "engineering", "developer", "software", "devops", "sre", "site reliability",
		"architect", "cto", "programmer", "qa", "quality assurance", "r d"},
	"data": {"data", "analytics", "machine learning", "ml", "ai", "business intelligence", "bi", "cdo"},
	"sales": {"sales", "account executive", "business development", "bdr", "sdr", "cro", "revenue",
		"partnerships"},
	"marketing": {"marketing", "growth", "brand", "demand generation", "demand gen", "content", "cmo",
		"communications", "public relations", "pr", "seo", "social media"},
	"finance": {"finance", "financial", "accounting", "accountant", "controller", "cfo", "treasurer",
		"treasury", "fp a", "tax", "audit"},
	"human_resources": {"hr", "human resources", "people", "talent", "recruiter", "recruiting",
		"recruitment", "chro", "payroll", "learning development"},
	"operations":       {"operations", "ops", "coo", "supply chain", "logistics", "procurement", "facilities"},
	"product":          {"product", "cpo"},
	"design":           {"design", "designer", "ux", "ui", "creative"},
	"legal":            {"legal", "counsel", "attorney", "lawyer", "compliance", "paralegal", "privacy"},
	"it":               {"it", "information technology", "cio", "ciso", "security", "sysadmin", "systems administrator", "help desk", "helpdesk", "infrastructure", "network"},
	"customer_success": {"customer success", "support", "customer service", "customer experience", "cx", "client services", "onboarding"},
	"executive":        {"ceo", "founder", "cofounder", "owner", "president", "chairman", "chairwoman", "managing director"},
}

// departmentAliases maps other names a persona may use to a department.
var departmentAliases = map[string]string{
	"tech": "engineering", "technology": "engineering", "r d": "engineering", "research development": "engineering",
	"data science": "data", "analytics": "data",
	"business development": "sales", "revenue": "sales",
	"human resources": "human_resources", "hr": "human_resources", "people": "human_resources", "talent": "human_resources",
	"ops": "operations", "product management": "product", "ux": "design",
	"information technology": "it", "security": "it",
	"customer success": "customer_success", "support": "customer_success", "customer support": "customer_success",
	"customer service": "customer_success", "cs": "customer_success",
	"c suite": "executive", "leadership": "executive", "management": "executive",
}

// departmentNames is the sorted vocabulary of departments.
var departmentNames = func() []string {
	out := make([]string, 0, len(departmentKeywords))
	for d := range departmentKeywords {
		out = append(out, d)
	}
	slices.Sort(out)
	return out
}()

// keywordWords holds every keyword phrase of both vocabularies split into
// words once, rather than for every contact compared.
var keywordWords = map[string][]string{}

func init() {
	for _, m := range []map[string][]string{seniorityKeywords, departmentKeywords} {
		for _, phrases := range m {
			for _, p := range phrases {
				keywordWords[p] = strings.Fields(p)
			}
		}
	}
}

// tokenSynonyms spell out abbreviations before comparing words.
var tokenSynonyms = map[string]string{
	"sr": "senior", "snr": "senior", "jr": "junior", "mgr": "manager", "dir": "director",
}

// fillers are dropped from titles and phrases before comparing them.
var fillers = map[string]bool{"of": true, "and": true, "the": true, "for": true, "in": true, "a": true}

// words returns the comparable words of s.
func words(s string) []string {
	raw := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	out := make([]string, 0, len(raw))
	for i := 0; i < len(raw); i++ {
		w := raw[i]
		if syn, ok := tokenSynonyms[w]; ok {
			w = syn
		}
		switch {
		case fillers[w]:
			continue
		case w == "vice" && i+1 < len(raw) && raw[i+1] == "president":
			w, i = "vp", i+1
		case w == "co" && i+1 < len(raw) && raw[i+1] == "founder":
			w, i = "cofounder", i+1
		case w == "v" && i+1 < len(raw) && raw[i+1] == "p":
			w, i = "vp", i+1
		case w == "chief":
			if abbr, n := chiefOfficer(raw[i+1:]); n > 0 {
				w, i = abbr, i+n
			}
		}
		out = append(out, w)
	}
	return out
}

// chiefOfficers are the C-suite titles written out ("chief executive
// officer"), by the words between "chief" and "officer", and their
// abbreviations, so either spelling matches the other as "vice president"
// matches "vp".
var chiefOfficers = map[string]string{
	"executive": "ceo", "technology": "cto", "technical": "cto", "financial": "cfo", "finance": "cfo",
	"operating": "coo", "operations": "coo", "marketing": "cmo", "information": "cio",
	"information security": "ciso", "revenue": "cro", "product": "cpo", "human resources": "chro",
	"data": "cdo",
}

// chiefOfficer reads "<area> officer" at the start of rest (the words after
// "chief"): the abbreviation of that title and how many words it took, or
// 0 when rest does not spell one.
func chiefOfficer(rest []string) (abbr string, n int) {
	for k := 1; k <= 2 && k < len(rest); k++ {
		if rest[k] != "officer" {
			continue
		}
		if abbr, ok := chiefOfficers[strings.Join(rest[:k], " ")]; ok {
			return abbr, k + 1
		}
	}
	return "", 0
}

// roleWords are the words of a job title that say what the role is: those
// before "to", which names whom it serves ("Executive Assistant to the
// CEO"), and without the "owner" of agile roles ("Product Owner"), who
// own no company. Seniority and departments are inferred from them.
func roleWords(w []string) []string {
	if i := slices.Index(w, "to"); i > 0 {
		w = w[:i]
	}
	out := make([]string, 0, len(w))
	for i, x := range w {
		if x == "owner" && i > 0 && agileOwned[w[i-1]] {
			continue
		}
		out = append(out, x)
	}
	return out
}

// agileOwned are the words before "owner" in roles that own a product or a
// process rather than a business.
var agileOwned = map[string]bool{"product": true, "process": true, "service": true, "data": true, "system": true, "project": true}

// phraseKey is the normal form of a phrase, for looking it up in a map.
func phraseKey(s string) string { return strings.Join(words(s), " ") }

// containsPhrase reports whether the words of phrase occur consecutively in
// text.
func containsPhrase(text, phrase []string) bool {
	if len(phrase) == 0 || len(phrase) > len(text) {
		return false
	}
	for i := 0; i+len(phrase) <= len(text); i++ {
		if slices.Equal(text[i:i+len(phrase)], phrase) {
			return true
		}
	}
	return false
}

func anyPhrase(text []string, phrases []string) bool {
	for _, p := range phrases {
		if containsPhrase(text, keywordWords[p]) {
			return true
		}
	}
	return false
}

// InferSeniority returns the seniority level of a job title, "" for an
// empty title.
func InferSeniority(jobTitle string) string {
	w := roleWords(words(jobTitle))
	if len(w) == 0 {
		return ""
	}
	for _, level := range SeniorityLevels {
		if anyPhrase(w, seniorityKeywords[level]) {
			return level
		}
	}
	return "individual_contributor"
}

// InferDepartments returns the departments a job title belongs to, sorted;
// empty when none is recognised.
func InferDepartments(jobTitle string) []string {
	w := roleWords(words(jobTitle))
	out := []string{}
	for _, d := range departmentNames {
		if anyPhrase(w, departmentKeywords[d]) {
			out = append(out, d)
		}
	}
	return out
}

// SeniorityLevel resolves what a persona says (a level or an alias, in any
// case and punctuation) to a level; ok is false when it names none.
func SeniorityLevel(s string) (level string, ok bool) {
	k := phraseKey(s)
	if slices.Contains(SeniorityLevels, strings.ReplaceAll(k, " ", "_")) {
		return strings.ReplaceAll(k, " ", "_"), true
	}
	level, ok = seniorityAliases[k]
	return level, ok
}

// department resolves a persona department to a known one, or "".
func department(s string) string {
	k := phraseKey(s)
	if d := strings.ReplaceAll(k, " ", "_"); departmentKeywords[d] != nil {
		return d
	}
	return departmentAliases[k]
}

// MatchedOn says which of a persona's values a contact matched, one per kind
// of criterion the persona has.
type MatchedOn struct {
	JobTitle   string
	Department string
	Seniority  string
	Location   string
}

// Matcher holds a persona's criteria in comparable form.
type Matcher struct {
	persona Criteria
	titles  [][]string
	depts   []string   // known department per persona department, "" for a phrase
	phrases [][]string // the words of each persona department
	levels  []string
	places  []place
}

type place struct{ country, region string }

// NewMatcher prepares p for matching. p must be valid (CheckPersona).
func NewMatcher(p Criteria) *Matcher {
	m := &Matcher{persona: p}
	for _, t := range p.JobTitles {
		m.titles = append(m.titles, words(t))
	}
	for _, d := range p.Departments {
		m.depts = append(m.depts, department(d))
		m.phrases = append(m.phrases, words(d))
	}
	for _, s := range p.SeniorityLevels {
		level, _ := SeniorityLevel(s)
		m.levels = append(m.levels, level)
	}
	for _, l := range p.Locations {
		m.places = append(m.places, place{country: countryKey(l.Country), region: regionKey(l.Region)})
	}
	return m
}

// Empty reports whether the persona has no contact criteria at all; such a
// persona matches no contact.
func (m *Matcher) Empty() bool {
	return len(m.titles)+len(m.depts)+len(m.levels)+len(m.places) == 0
}

// Match reports whether c belongs to the persona's audience: it must meet
// every kind of criterion the persona has (job titles, departments,
// seniority levels, locations), and within a kind any one value.
func (m *Matcher) Match(c Contact) (MatchedOn, bool) {
	var on MatchedOn
	if m.Empty() || c.IsDeleted {
		return MatchedOn{}, false
	}
	title := words(c.JobTitle)
	if len(m.titles) > 0 {
		i := slices.IndexFunc(m.titles, func(t []string) bool { return containsPhrase(title, t) })
		if i < 0 {
			return MatchedOn{}, false
		}
		on.JobTitle = m.persona.JobTitles[i]
	}
	if len(m.depts) > 0 {
		inferred := InferDepartments(c.JobTitle)
		i := slices.IndexFunc(m.depts, func(d string) bool { return d != "" && slices.Contains(inferred, d) })
		if i < 0 {
			i = slices.IndexFunc(m.phrases, func(p []string) bool { return containsPhrase(title, p) })
		}
		if i < 0 {
			return MatchedOn{}, false
		}
		on.Department = m.persona.Departments[i]
	}
	if len(m.levels) > 0 {
		level := InferSeniority(c.JobTitle)
		i := slices.Index(m.levels, level)
		if level == "" || i < 0 {
			return MatchedOn{}, false
		}
		on.Seniority = m.persona.SeniorityLevels[i]
	}
	if len(m.places) > 0 {
		a := c.Place()
		country, region := countryKey(a.Country), regionKey(a.State)
		i := slices.IndexFunc(m.places, func(p place) bool {
			return (p.country == "" || p.country == country) && (p.region == "" || p.region == region)
		})
		if i < 0 {
			return MatchedOn{}, false
		}
		l := m.persona.Locations[i]
		on.Location = strings.Trim(l.Country+"/"+l.Region, "/")
	}
	return on, true
}

// countries maps the names and ISO codes of common countries to one key
// (the ISO 3166 alpha-2 code); a country outside the table is compared by
// its words.
var countries = map[string]string{}

func init() {
	for _, line := range []string{
		"us usa|united states|united states america|america|u s", "ca can|canada", "mx mex|mexico",
		"br bra|brazil|brasil", "ar arg|argentina", "gb gbr uk|united kingdom|great britain|britain|u k",
		"ie irl|ireland", "fr fra|france", "de deu|germany|deutschland", "nl nld|netherlands|holland",
		"be bel|belgium", "es esp|spain|espana", "pt prt|portugal", "it ita|italy|italia",
		"ch che|switzerland", "at aut|austria", "se swe|sweden", "no nor|norway", "dk dnk|denmark",
		"fi fin|finland", "pl pol|poland", "in ind|india", "cn chn|china", "jp jpn|japan",
		"kr kor|south korea|korea", "sg sgp|singapore", "au aus|australia", "nz nzl|new zealand",
		"ae are uae|united arab emirates", "il isr|israel", "za zaf|south africa",
	} {
		codes, names, _ := strings.Cut(line, "|")
		key := strings.Fields(codes)[0]
		for _, k := range append(strings.Fields(codes), strings.Split(names, "|")...) {
			countries[k] = key
		}
	}
}

// usStates maps US state names to their postal codes, so a region given
// either way matches an address written the other way.
var usStates = map[string]string{
	"alabama": "al", "alaska": "ak", "arizona": "az", "arkansas": "ar", "california": "ca",
	"colorado": "co", "connecticut": "ct", "delaware": "de", "district columbia": "dc", "florida": "fl",
	"georgia": "ga", "hawaii": "hi", "idaho": "id", "illinois": "il", "indiana": "in", "iowa": "ia",
	"kansas": "ks", "kentucky": "ky", "louisiana": "la", "maine": "me", "maryland": "md",
	"massachusetts": "ma", "michigan": "mi", "minnesota": "mn", "mississippi": "ms", "missouri": "mo",
	"montana": "mt", "nebraska": "ne", "nevada": "nv", "new hampshire": "nh", "new jersey": "nj",
	"new mexico": "nm", "new york": "ny", "north carolina": "nc", "north dakota": "nd", "ohio": "oh",
	"oklahoma": "ok", "oregon": "or", "pennsylvania": "pa", "rhode island": "ri", "south carolina": "sc",
	"south dakota": "sd", "tennessee": "tn", "texas": "tx", "utah": "ut", "vermont": "vt",
	"virginia": "va", "washington": "wa", "west virginia": "wv", "wisconsin": "wi", "wyoming": "wy",
}

// countryKey is the form countries are compared in.
func countryKey(s string) string {
	k := strings.Join(rawWords(s), " ")
	if c, ok := countries[k]; ok {
		return c
	}
	return k
}

// regionKey is the form regions (states, provinces) are compared in. A US
// state name becomes its postal code. Region codes are only meaningful
// within a country, which the persona's location usually also names.
func regionKey(s string) string {
	k := strings.Join(rawWords(s), " ")
	if c, ok := usStates[k]; ok {
		return c
	}
	return k
}

// rawWords lower-cases s and splits it into words, without the job-title
// abbreviations of words ("co" is Colorado here). Fillers are dropped from
// names of several words ("The Netherlands"), never from a single word: "IN"
// is India's ISO code and Indiana's postal code.
func rawWords(s string) []string {
	raw := strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	if len(raw) < 2 {
		return raw
	}
	return slices.DeleteFunc(raw, func(w string) bool { return fillers[w] })
}
