package pages

import (
	"net/http"
	"regexp"
)

// giftImageName is the shape of a demo image's name: no path, no dot
// files.
var giftImageName = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}\.png$`)

// giftImage serves GET /assets/gifts/{name}: a demo catalog image, which
// browsers and mail clients may keep a day (unlike the pages, it holds
// nothing of anyone's). Any other name is the pages' 404.
func (h *Handler) giftImage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("name")
	data, err := giftImages.ReadFile("assets/gifts/" + name)
	if !giftImageName.MatchString(name) || err != nil {
		h.problem(w, r, http.StatusNotFound, nil)
		return
	}
	w.Header().Set("Content-Type", "image/png")
	w.Header().Set("Cache-Control", "public, max-age=86400")
	_, _ = w.Write(data)
}
