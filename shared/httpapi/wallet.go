package httpapi

import (
	"net/http"
	"time"

	"github.com/giftcampaign/service/shared/gifting"
)

// walletView is the data of GET /wallet: the balance and a page of the
// ledger, newest first, so a tenant can account for every credit.
type walletView struct {
	OrganizationID string         `json:"organizationId"`
	Balance        int64          `json:"balance"`
	Currency       string         `json:"currency"`
	Budget         gifting.Budget `json:"budget"`
	UpdatedAt      time.Time      `json:"updatedAt"`
	Ledger         ledgerPage     `json:"ledger"`
}

type ledgerPage struct {
	Items      []gifting.LedgerEntry `json:"items"`
	Pagination gifting.Pagination    `json:"pagination"`
}

// wallet serves GET /wallet (enveloped): page and limit (default 12) page
// through the ledger.
func (s *Server) wallet(w http.ResponseWriter, r *http.Request) error {
	q := newQuery(r)
	page := q.page(12)
	if err := q.err(); err != nil {
		return err
	}
	orgID := principal(r.Context()).OrgID
	st, err := s.store.WalletStatement(r.Context(), orgID, page)
	if err != nil {
		return err
	}
	items := st.Entries
	if items == nil {
		items = []gifting.LedgerEntry{}
	}
	writeEnvelope(w, http.StatusOK, "Wallet retrieved", walletView{
		OrganizationID: orgID, Balance: st.Wallet.Balance, Currency: st.Wallet.Currency, Budget: st.Budget,
		UpdatedAt: st.Wallet.UpdatedAt,
		Ledger:    ledgerPage{Items: items, Pagination: gifting.NewPagination(page, st.Total)},
	})
	return nil
}
