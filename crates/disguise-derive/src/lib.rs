//! `#[derive(Disclose)]`: the compiler's check that a report shows nothing of the private data
//! by default.
//!
//! A report type of `disguise` derives `serde::Serialize` (what every front end prints by
//! default) and `Disclose`. The derive requires every field to be one of:
//!
//! * a type that implements `Disclose` itself — `Public<T>`, `Released<T>`, another report,
//!   or an `Option`/`Vec`/`Box` of one — so that a raw `usize` or `f64` computed from the data
//!   does not compile as a field of a report;
//! * a `Diagnostic<T>`, a value computed from the private data without noise: it has no
//!   `Serialize` (so the field must be `#[serde(skip)]`, which serde's derive enforces) and
//!   appears only in the report's `not_private` section, which a front end shows on request;
//! * a field marked `#[disclose(internal)]`, which must also be `#[serde(skip)]`: bookkeeping
//!   a front end does not print (e.g. the calls a ledger composes).
//!
//! The generated `not_private` gathers the diagnostics of the fields, nested under the
//! fields' (serde) names, or merged for `#[serde(flatten)]` fields.

use proc_macro::TokenStream;
use proc_macro2::TokenStream as Tokens;
use quote::{format_ident, quote};
use syn::{Attribute, Data, DeriveInput, Fields, GenericParam, Type, parse_macro_input};

/// Derives `disguise::disclosure::Disclose` (see the crate documentation).
#[proc_macro_derive(Disclose, attributes(disclose))]
pub fn derive_disclose(input: TokenStream) -> TokenStream {
    let input = parse_macro_input!(input as DeriveInput);
    match expand(&input) {
        Ok(tokens) => tokens.into(),
        Err(err) => err.to_compile_error().into(),
    }
}

/// How one field takes part.
enum Kind {
    /// A `Diagnostic<T>`: revealed under its key.
    Diagnostic,
    /// Bookkeeping not shown (`#[disclose(internal)]` with `#[serde(skip)]`).
    Internal,
    /// A disclosable value whose diagnostics merge into the parent's (`#[serde(flatten)]`).
    Flattened,
    /// A disclosable value whose diagnostics nest under its key.
    Nested,
}

/// What the serde and disclose attributes of a field say.
struct FieldAttrs {
    flatten: bool,
    skip: bool,
    rename: Option<String>,
    internal: bool,
}

fn field_attrs(attrs: &[Attribute]) -> syn::Result<FieldAttrs> {
    let mut out = FieldAttrs {
        flatten: false,
        skip: false,
        rename: None,
        internal: false,
    };
    for attr in attrs {
        if attr.path().is_ident("serde") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("flatten") {
                    out.flatten = true;
                } else if meta.path.is_ident("skip") || meta.path.is_ident("skip_serializing") {
                    out.skip = true;
                } else if meta.path.is_ident("rename") {
                    let value: syn::LitStr = meta.value()?.parse()?;
                    out.rename = Some(value.value());
                } else if meta.input.peek(syn::Token![=]) {
                    // Other serde options with a value (skip_serializing_if, with, …).
                    let _: syn::Expr = meta.value()?.parse()?;
                } else if meta.input.peek(syn::token::Paren) {
                    let _content;
                    syn::parenthesized!(_content in meta.input);
                }
                Ok(())
            })?;
        } else if attr.path().is_ident("disclose") {
            attr.parse_nested_meta(|meta| {
                if meta.path.is_ident("internal") {
                    out.internal = true;
                    Ok(())
                } else {
                    Err(meta.error("expected `internal`"))
                }
            })?;
        }
    }
    Ok(out)
}

/// Whether `ty` is written `Diagnostic<…>` (any path ending so).
fn is_diagnostic(ty: &Type) -> bool {
    match ty {
        Type::Path(path) => path
            .path
            .segments
            .last()
            .is_some_and(|s| s.ident == "Diagnostic"),
        _ => false,
    }
}

fn kind(field: &syn::Field) -> syn::Result<Kind> {
    let attrs = field_attrs(&field.attrs)?;
    if is_diagnostic(&field.ty) {
        if attrs.internal || attrs.flatten {
            return Err(syn::Error::new_spanned(
                field,
                "a Diagnostic field is neither internal nor flattened: it is shown under \
                 `not_private` only",
            ));
        }
        return Ok(Kind::Diagnostic);
    }
    if attrs.internal {
        if !attrs.skip {
            return Err(syn::Error::new_spanned(
                field,
                "a #[disclose(internal)] field must be #[serde(skip)]: it is never shown",
            ));
        }
        return Ok(Kind::Internal);
    }
    if attrs.skip {
        return Err(syn::Error::new_spanned(
            field,
            "a field skipped by serde is a Diagnostic<T> or #[disclose(internal)]",
        ));
    }
    Ok(if attrs.flatten {
        Kind::Flattened
    } else {
        Kind::Nested
    })
}

/// The statements that add one field's diagnostics to `out`, the field bound to `access`.
fn field_statements(field: &syn::Field, key: String, access: &Tokens) -> syn::Result<Tokens> {
    let name = field_attrs(&field.attrs)?.rename.unwrap_or(key);
    Ok(match kind(field)? {
        Kind::Diagnostic => quote! { out.reveal(#name, #access); },
        Kind::Internal => quote! {},
        Kind::Flattened => quote! { out.flatten(#access); },
        Kind::Nested => quote! { out.nest(#name, #access); },
    })
}

fn fields_statements(
    fields: &Fields,
    bind: &dyn Fn(usize, &syn::Field) -> Tokens,
) -> syn::Result<Tokens> {
    let mut body = Tokens::new();
    for (i, field) in fields.iter().enumerate() {
        let key = field
            .ident
            .as_ref()
            .map_or_else(|| i.to_string(), ToString::to_string);
        body.extend(field_statements(field, key, &bind(i, field))?);
    }
    Ok(body)
}

fn expand(input: &DeriveInput) -> syn::Result<Tokens> {
    let root = quote! { ::disguise::disclosure };
    let body = match &input.data {
        Data::Struct(data) => fields_statements(&data.fields, &|i, field| match &field.ident {
            Some(ident) => quote! { &self.#ident },
            None => {
                let index = syn::Index::from(i);
                quote! { &self.#index }
            }
        })?,
        Data::Enum(data) => {
            let mut arms = Tokens::new();
            for variant in &data.variants {
                let ident = &variant.ident;
                let names: Vec<_> = variant
                    .fields
                    .iter()
                    .enumerate()
                    .map(|(i, f)| {
                        f.ident
                            .clone()
                            .unwrap_or_else(|| format_ident!("field{}", i))
                    })
                    .collect();
                let statements = fields_statements(&variant.fields, &|i, _| {
                    let name = &names[i];
                    quote! { #name }
                })?;
                let pattern = match &variant.fields {
                    Fields::Named(_) => quote! { Self::#ident { #(#names),* } },
                    Fields::Unnamed(_) => quote! { Self::#ident ( #(#names),* ) },
                    Fields::Unit => quote! { Self::#ident },
                };
                arms.extend(quote! { #[allow(unused_variables)] #pattern => { #statements } });
            }
            quote! { match self { #arms } }
        }
        Data::Union(union) => {
            return Err(syn::Error::new_spanned(
                union.union_token,
                "Disclose is derived for structs and enums",
            ));
        }
    };
    let mut generics = input.generics.clone();
    for param in &mut generics.params {
        if let GenericParam::Type(ty) = param {
            ty.bounds.push(syn::parse_quote!(#root::Disclose));
        }
    }
    let (impl_generics, ty_generics, where_clause) = generics.split_for_impl();
    let ident = &input.ident;
    Ok(quote! {
        impl #impl_generics #root::Disclose for #ident #ty_generics #where_clause {
            fn not_private(&self) -> ::core::option::Option<#root::Value> {
                #[allow(unused_mut)]
                let mut out = #root::NotPrivate::default();
                #body
                out.finish()
            }
        }
    })
}
