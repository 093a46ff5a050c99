package httpapi

import (
	"github.com/giftcampaign/service/shared/access"
	"github.com/giftcampaign/service/shared/catalog"
	"github.com/giftcampaign/service/shared/contact"
	"github.com/giftcampaign/service/shared/event"
	"github.com/giftcampaign/service/shared/sandbox"
	"github.com/giftcampaign/service/shared/suppression"
	"github.com/giftcampaign/service/shared/wallet"
)

// Store is the storage the server builds its use cases over: the ports of
// the slices whose use cases it builds itself (access, wallet, catalog,
// event, contact without a service). No handler calls it directly (the
// clock aside): every request goes through a slice's application layer
// (those of webhook, campaign, recipient, audience and contact through the
// service, which wires their other ports). shared/dynamo's Store
// implements it; shared/app asserts that it does.
type Store interface {
	access.Store
	wallet.Store
	catalog.Store
	event.Store
	contact.Store
	suppression.Store
	sandbox.Store
}
