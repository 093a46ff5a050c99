package pages

import (
	"html/template"
	"net/http"

	"github.com/giftcampaign/service/shared/i18n"
	"github.com/giftcampaign/service/shared/recipient"
	"golang.org/x/text/language"
)

// templates are the page templates once per supported language: the
// template's {{t "…"}} is that language's i18n.Lang.T, bound once here
// rather than cloned per request.
var templates = func() map[language.Tag]*template.Template {
	out := map[language.Tag]*template.Template{}
	for _, tag := range i18n.Supported {
		out[tag] = template.Must(tmpl.Clone()).Funcs(template.FuncMap{"t": i18n.For(tag).T})
	}
	return out
}()

// templateFor is the page template of l, English's for a language the
// pages are not written in.
func templateFor(l i18n.Lang) *template.Template {
	if t, ok := templates[l.Tag]; ok {
		return t
	}
	return templates[i18n.Supported[0]]
}

// lang is the language of the page of p answering r: the recipient's
// locale, else the browser's Accept-Language, else English (i18n.Choose).
// A page without a recipient (a link that does not exist) has the
// browser's.
func (h *Handler) lang(r *http.Request, p recipient.Page) i18n.Lang {
	return i18n.For(i18n.Choose(p.Recipient.ContactDetails.Locale, r.Header.Get("Accept-Language")))
}
