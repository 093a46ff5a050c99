package main

import (
	"errors"

	"github.com/giftcampaign/service/shared/gifting"
)

func asError(err error, target **gifting.Error) bool { return errors.As(err, target) }
