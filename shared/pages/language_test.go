package pages_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
	"github.com/giftcampaign/service/shared/recipient"
	"github.com/giftcampaign/service/shared/testenv"
)

// TestPageLanguage: a page is in the recipient's locale when the pages
// are written in it, else in the browser's Accept-Language, else in
// English; a page without a recipient (an unknown link) follows the
// browser. Dates are written as the language writes them.
func TestPageLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	add := func(email, locale string) recipient.Recipient {
		res, err := testenv.Recipients(f.s).Write(context.Background(), recipient.AddInput{OrgID: f.orgID, CampaignID: f.campaign,
			SourceType: "api", PublicBaseURL: "https://gifts.test", Contact: gifting.ContactInput{MailID: email, FirstName: "Ana", Locale: locale}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Recipient
	}
	get := func(path, accept string) string {
		req := httptest.NewRequest(http.MethodGet, path, nil)
		if accept != "" {
			req.Header.Set("Accept-Language", accept)
		}
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		return rec.Body.String()
	}
	es, ja, none := add("es@example.com", "es-MX"), add("ja@example.com", "ja"), add("none@example.com", "")
	for _, c := range []struct {
		name, path, accept, lang, heading string
	}{
		{"locale over the browser", "/gift/" + es.LandingPageID, "fr-FR,fr;q=0.9", "es", "Hola, Ana: ¡tiene un regalo!"},
		{"unsupported locale: the browser", "/gift/" + ja.LandingPageID, "ja,fr;q=0.8", "fr", "Bonjour Ana, vous avez un cadeau\u00a0!"},
		{"unsupported locale and browser: English", "/gift/" + ja.LandingPageID, "ja", "en", "Hi Ana, you have a gift!"},
		{"no locale: the browser", "/gift/" + none.LandingPageID, "de-CH", "de", "Hallo Ana, Sie haben ein Geschenk!"},
		{"nothing: English", "/gift/" + none.LandingPageID, "", "en", "Hi Ana, you have a gift!"},
		{"claim form in the locale", "/claim/" + es.ClaimPageID, "", "es", "Hola, Ana: ¿adónde le enviamos su regalo?"},
		{"unknown link: the browser", "/gift/nope", "de", "de", "Diese Seite gibt es nicht"},
	} {
		body := get(c.path, c.accept)
		if !strings.Contains(body, `<html lang="`+c.lang+`">`) || !strings.Contains(body, "<h1>"+c.heading+"</h1>") {
			t.Errorf("%s: want lang %s and heading %q:\n%.600s", c.name, c.lang, c.heading, body)
		}
	}
}

// TestTimelineDatesInTheLanguage: a German recipient's timeline writes
// the day its address was confirmed as German does.
func TestTimelineDatesInTheLanguage(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil)
	res, err := testenv.Recipients(f.s).Write(context.Background(), recipient.AddInput{OrgID: f.orgID, CampaignID: f.campaign,
		SourceType: "api", PublicBaseURL: "https://gifts.test", Contact: gifting.ContactInput{MailID: "de@example.com", FirstName: "Jonas", Locale: "de"}})
	if err != nil {
		t.Fatal(err)
	}
	r := res.Recipient
	if got := f.do(t, "POST", "/claim/"+r.ClaimPageID, address(f.cheap.GiftID)); got.status != http.StatusSeeOther {
		t.Fatalf("claim: %d %s", got.status, got.body)
	}
	body := f.do(t, "GET", "/gift/"+r.LandingPageID+"?done=claimed", nil).body
	months := []string{"Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"}
	days := []string{"Sonntag", "Montag", "Dienstag", "Mittwoch", "Donnerstag", "Freitag", "Samstag"}
	now := time.Now().UTC()
	want := days[now.Weekday()] + ", " + now.Format("2") + ". " + months[now.Month()-1] + " " + now.Format("2006")
	for _, s := range []string{want, "Bestätigt", "Wo Ihr Geschenk gerade ist", "Lieferadresse", "Vielen Dank! Ihre Adresse ist bestätigt"} {
		if !strings.Contains(body, s) {
			t.Errorf("German landing page after the claim lacks %q", s)
		}
	}
}
