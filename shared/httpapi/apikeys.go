package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/gifting"
)

// apiKeyRoutes are the organization's own API keys (admin scope).
func (s *Server) apiKeyRoutes() []route {
	admin := gifting.ScopeAdmin
	return []route{
		{pattern: "POST /api/campaigns/api-keys", handle: s.createAPIKey, scope: admin},
		{pattern: "GET /api/campaigns/api-keys", handle: s.listAPIKeys, scope: admin},
		{pattern: "DELETE /api/campaigns/api-keys/{keyId}", handle: s.revokeAPIKey, scope: admin},
	}
}

// apiKeyDTO is a key as the API shows it (the OpenAPI schema ApiKey):
// never its secret or hash.
type apiKeyDTO struct {
	KeyID      string          `json:"keyId"`
	Name       string          `json:"name"`
	Prefix     string          `json:"prefix"`
	Scopes     []gifting.Scope `json:"scopes"`
	UserID     string          `json:"userId"`
	CreatedBy  string          `json:"createdBy"`
	CreatedAt  time.Time       `json:"createdAt"`
	LastUsedAt *time.Time      `json:"lastUsedAt"`
	RevokedAt  *time.Time      `json:"revokedAt"`
}

func toAPIKeyDTO(k gifting.APIKey) apiKeyDTO {
	return apiKeyDTO{KeyID: k.KeyID, Name: k.Name, Prefix: k.Prefix, Scopes: gifting.Granted(k.Scopes), UserID: k.UserID,
		CreatedBy: k.CreatedBy, CreatedAt: k.CreatedAt, LastUsedAt: k.LastUsedAt, RevokedAt: k.RevokedAt}
}

// apiKeySecretDTO is a new key with its secret (ApiKeyCreated).
type apiKeySecretDTO struct {
	apiKeyDTO
	Key string `json:"key"`
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) error {
	var in access.NewKey
	if err := decode(w, r, &in); err != nil {
		return err
	}
	secret, k, err := s.access.CreateKey(r.Context(), principal(r.Context()), in)
	if err != nil {
		return err
	}
	writeEnvelope(w, http.StatusCreated, "API key created; keep the key, it is not shown again",
		apiKeySecretDTO{apiKeyDTO: toAPIKeyDTO(k), Key: secret})
	return nil
}

// apiKeyList is the data of GET /api-keys.
type apiKeyList struct {
	Items []apiKeyDTO `json:"items"`
}

func (s *Server) listAPIKeys(w http.ResponseWriter, r *http.Request) error {
	keys, err := s.access.Keys(r.Context(), principal(r.Context()).OrgID)
	if err != nil {
		return err
	}
	items := make([]apiKeyDTO, len(keys))
	for i, k := range keys {
		items[i] = toAPIKeyDTO(k)
	}
	writeEnvelope(w, http.StatusOK, "API keys, oldest first", apiKeyList{Items: items})
	return nil
}

func (s *Server) revokeAPIKey(w http.ResponseWriter, r *http.Request) error {
	k, err := s.access.RevokeKey(r.Context(), principal(r.Context()), r.PathValue("keyId"))
	if err != nil {
		return err
	}
	// This process forgets the key at once; others within their key
	// cache's time (Config.KeyCacheTTL).
	s.forgetKeys()
	writeEnvelope(w, http.StatusOK, "API key revoked", toAPIKeyDTO(k))
	return nil
}
