//! Choices a user names by a word (selection rules, backends, precisions):
//! one declaration gives each its name, its line of help, the list every
//! front end offers, parsing and display.

/// Implements, for a unit-only enum, the constants `ALL` (every choice, in
/// the order front ends list them) and `NAMES` (their words), `name()`,
/// `summary()` (a line for help texts), `FromStr` and `Display`, and
/// declares the parse error `$error` ("unknown $what "x": expected one of
/// a, b, c").
///
/// ```ignore
/// named_choices! { Selection, UnknownSelection, "selection rule", [
///     Lemke = "lemke": "deterministic Lemke …",
///     All = "all": "every solution …",
/// ] }
/// ```
/// A choice a user names by a word: what front ends need to offer, parse
/// and print every such enum the same way (implemented by
/// `named_choices!`).
pub trait NamedChoice: Copy + Send + Sync + std::str::FromStr + 'static {
    /// Every choice, in the order front ends list them.
    fn choices() -> &'static [Self];
    /// The word front ends and summaries use.
    fn word(self) -> &'static str;
    /// One line on what the choice does (for help texts).
    fn help(self) -> &'static str;
}

macro_rules! named_choices {
    ($ty:ident, $error:ident, $what:literal, [$($variant:ident = $name:literal : $summary:literal),+ $(,)?]) => {
        impl $crate::names::NamedChoice for $ty {
            fn choices() -> &'static [Self] {
                &$ty::ALL
            }
            fn word(self) -> &'static str {
                self.name()
            }
            fn help(self) -> &'static str {
                self.summary()
            }
        }

        impl $ty {
            /// Every choice, in the order front ends list them.
            pub const ALL: [$ty; [$($name),+].len()] = [$($ty::$variant),+];

            /// The words of [`Self::ALL`], in the same order.
            pub const NAMES: [&'static str; [$($name),+].len()] = [$($name),+];

            /// The word front ends and summaries use.
            pub fn name(self) -> &'static str {
                match self {
                    $($ty::$variant => $name,)+
                }
            }

            /// One line on what the choice does (for help texts).
            pub fn summary(self) -> &'static str {
                match self {
                    $($ty::$variant => $summary,)+
                }
            }
        }

        #[doc = concat!("A ", $what, " word that is none of [`", stringify!($ty), "::NAMES`].")]
        #[derive(Clone, Debug, PartialEq, Eq)]
        pub struct $error(pub String);

        impl std::fmt::Display for $error {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, concat!("unknown ", $what, " {:?}: expected one of {}"), self.0, $ty::NAMES.join(", "))
            }
        }

        impl std::error::Error for $error {}

        impl std::str::FromStr for $ty {
            type Err = $error;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                $ty::ALL.into_iter().find(|c| c.name() == s).ok_or_else(|| $error(s.to_string()))
            }
        }

        impl std::fmt::Display for $ty {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}

pub(crate) use named_choices;

/// Deserializes a [`NamedChoice`] from its word; anything else is an error
/// that says what was expected and what was given ("expected a string
/// naming a schedule law (mixed, uniform, …), got the number 3"), not the
/// parser's "expected value".
pub(crate) fn deserialize_choice<'de, D, T>(deserializer: D, what: &'static str) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: NamedChoice,
{
    deserializer.deserialize_any(ChoiceVisitor::<T> { what, choice: std::marker::PhantomData })
}

struct ChoiceVisitor<T> {
    what: &'static str,
    choice: std::marker::PhantomData<T>,
}

impl<T: NamedChoice> ChoiceVisitor<T> {
    fn got<E: serde::de::Error>(&self, given: std::fmt::Arguments<'_>) -> E {
        E::custom(format_args!("{self}, got {given}"))
    }
}

impl<T: NamedChoice> std::fmt::Display for ChoiceVisitor<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let words: Vec<&str> = T::choices().iter().map(|c| c.word()).collect();
        write!(f, "expected a string naming {} ({})", self.what, words.join(", "))
    }
}

impl<'de, T: NamedChoice> serde::de::Visitor<'de> for ChoiceVisitor<T> {
    type Value = T;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{self}")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<T, E> {
        T::choices().iter().copied().find(|c| c.word() == s).ok_or_else(|| self.got(format_args!("{s:?}")))
    }

    fn visit_bool<E: serde::de::Error>(self, b: bool) -> Result<T, E> {
        Err(self.got(format_args!("the boolean {b}")))
    }

    fn visit_i64<E: serde::de::Error>(self, x: i64) -> Result<T, E> {
        Err(self.got(format_args!("the number {x}")))
    }

    fn visit_u64<E: serde::de::Error>(self, x: u64) -> Result<T, E> {
        Err(self.got(format_args!("the number {x}")))
    }

    fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<T, E> {
        Err(self.got(format_args!("the number {}", crate::number::readable(x))))
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<T, E> {
        Err(self.got(format_args!("null")))
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, _: A) -> Result<T, A::Error> {
        Err(self.got(format_args!("a list")))
    }

    fn visit_map<A: serde::de::MapAccess<'de>>(self, _: A) -> Result<T, A::Error> {
        Err(self.got(format_args!("an object")))
    }
}
