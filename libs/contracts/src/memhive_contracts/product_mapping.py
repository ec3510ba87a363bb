"""Mapping between domain products and their protobuf record."""

from __future__ import annotations

from memhive.v1 import products_pb2 as pb
from memhive_domain.products import Product
from memhive_domain.scopes import Visibility

from memhive_contracts.mapping import (
    from_timestamp,
    to_timestamp,
    visibility_from_pb,
    visibility_to_pb,
)


def product_to_pb(product: Product) -> pb.Product:
    return pb.Product(
        workspace_id=product.workspace_id,
        product_id=product.product_id,
        name=product.name,
        visibility=visibility_to_pb(product.visibility),
        updated_by=product.updated_by,
        updated_at=to_timestamp(product.updated_at),
    )


def product_from_pb(message: pb.Product) -> Product:
    updated_at = from_timestamp(message.updated_at, message.HasField("updated_at"))
    assert updated_at is not None  # every record is written with it
    return Product(
        workspace_id=message.workspace_id,
        product_id=message.product_id,
        name=message.name,
        visibility=visibility_from_pb(message.visibility) or Visibility.PRIVATE,
        updated_by=message.updated_by,
        updated_at=updated_at,
    )
