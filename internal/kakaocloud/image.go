// Copyright 2026 The karpenter-provider-kakaocloud Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

package kakaocloud

import (
	"context"
	"net/url"
)

// ImageFilter narrows ListImages.
type ImageFilter struct {
	ID     string
	Name   string
	Status string
}

// ListImages returns every image of the Image service that matches the filter.
func (c *Client) ListImages(ctx context.Context, f ImageFilter) ([]Image, error) {
	return listAll(ctx, c, call{
		service: ServiceImage, operation: "ListImages", path: PathImages,
		query: filter("id", f.ID, "name", f.Name, "status", f.Status),
	}, func(r *ListImagesResponse) ([]Image, Pagination) { return r.Images, r.Pagination })
}

// GetImage returns one image; ErrNotFound when it does not exist.
func (c *Client) GetImage(ctx context.Context, id string) (Image, error) {
	return getOne(ctx, c, call{service: ServiceImage, operation: "GetImage", path: PathImages + "/" + url.PathEscape(id)},
		func(r *GetImageResponse) Image { return r.Image })
}
