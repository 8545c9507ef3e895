//! Impact problems (docs/model.md §1): `M`, `v⁻`, contacts with their Jacobian
//! rows and friction, validated once and with the per-problem constants that
//! every step reuses precomputed.

pub mod bilateral;
pub mod cone;
mod error;
pub mod operators;
mod validate;
mod wedge;

pub use cone::Dimension;
pub use error::{ProblemError, ProblemWarning};
pub use operators::{ContactOperators, StepLayout};

use nalgebra::{DMatrix, DVector};
use validate::{
    check_blocked_contacts, check_contacts, check_directions, check_finite, check_restitution, check_symmetric,
    tangent_field,
};

/// One active contact: its Jacobian rows, friction and restitution
/// coefficients.
///
/// `normal · v` is the normal (separating-positive) contact velocity;
/// `tangents[k] · v` the tangential velocities (one tangent in the plane, two
/// in space).
#[derive(Clone, Debug, PartialEq)]
pub struct Contact {
    /// Display name (scenes use `A`, `B`, …).
    pub name: String,
    /// The normal row of `Jn` (length `n`).
    pub normal: DVector<f64>,
    /// The tangent rows of `Jt` (1 planar, 2 spatial; each length `n`).
    pub tangents: Vec<DVector<f64>>,
    /// Coulomb friction coefficient `μ ≥ 0`.
    pub friction: f64,
    /// Energetic coefficient of restitution `e ∈ [0, 1]` (docs/model.md
    /// §4b): the contact's expansion releases `e²` times the work its
    /// compression absorbed. `0` (the default): perfectly inelastic.
    pub restitution: f64,
}

impl Contact {
    /// A planar contact with one tangent row.
    pub fn planar(name: impl Into<String>, normal: DVector<f64>, tangent: DVector<f64>, friction: f64) -> Self {
        Contact { name: name.into(), normal, tangents: vec![tangent], friction, restitution: 0.0 }
    }

    /// A spatial contact with two tangent rows.
    pub fn spatial(name: impl Into<String>, normal: DVector<f64>, tangents: [DVector<f64>; 2], friction: f64) -> Self {
        let [t1, t2] = tangents;
        Contact { name: name.into(), normal, tangents: vec![t1, t2], friction, restitution: 0.0 }
    }

    /// This contact with restitution coefficient `e` (checked when the
    /// problem is built: `0 ≤ e ≤ 1`).
    pub fn with_restitution(self, e: f64) -> Self {
        Contact { restitution: e, ..self }
    }
}

/// The magnitudes the arithmetic handles with headroom (model.md §1,
/// "Range"): every entry of `M`, `v⁻` and the contact rows, `M⁻¹`, the
/// Delassus matrix `J M⁻¹ Jᵀ`, the velocity scale `s` and the step size `h`
/// must be at most `RANGE` in magnitude, and the diagonal of `W`, `s` and `h`
/// at least `1/RANGE`, so that every product of two of them stays a normal
/// `f64` (`10⁻³⁰⁰ … 10³⁰⁰`). Beyond, sums of squares overflow (an SVD of a
/// matrix holding `inf` never returns) or underflow to zero; a problem outside
/// the range is refused, never clamped: rescale its units.
pub const RANGE: f64 = 1e150;

/// The largest step LCP accepted, `N = m(3 + d)` (model.md §1): the step
/// matrix holds `N²` and each worker's Lemke tableau `2N²` doubles (64 MiB
/// at the limit), and a Lemke solve costs `O(N³)`.
pub const MAX_STEP_LCP_SIZE: usize = 2048;

/// A contact's normal row is dead in the constrained space of bilateral
/// constraints when `Jn M̃⁻¹ Jnᵀ ≤ DEAD_ROW · Jn M⁻¹ Jnᵀ` (the 10⁻¹² of the
/// dead-tangent warning, model.md §1).
pub const DEAD_ROW: f64 = 1e-12;

/// The name contact `i` gets when none is given: `A`, `B`, …, `Z`, `AA`, ….
pub fn default_contact_name(i: usize) -> String {
    let letter = (b'A' + (i % 26) as u8) as char;
    if i < 26 { letter.to_string() } else { format!("{}{}", default_contact_name(i / 26 - 1), letter) }
}

/// A validated impact problem (docs/model.md §1).
///
/// | symbol | here |
/// |---|---|
/// | `M` (n×n, SPD) | [`mass`](Self::mass) |
/// | `v⁻` (n) | [`velocity`](Self::velocity) |
/// | `Jn`, `Jt`, `μ` | [`contacts`](Self::contacts) |
/// | `d` friction directions | [`friction_directions`](Self::friction_directions) |
/// | `J_eq` (r×n) bilateral rows | [`bilateral`](Self::bilateral) |
///
/// Construction checks every size, that all entries are finite, that `M` is
/// symmetric positive definite and that friction is non-negative, and then
/// precomputes `M⁻¹`, `M⁻¹Jᵀ`, the Delassus matrix `J M⁻¹ Jᵀ` and the step-LCP
/// matrix ([`ContactOperators`]). Bilateral constraints `J_eq v = 0`
/// ([`with_bilateral`](Self::with_bilateral)) replace `M⁻¹` by the
/// constrained inverse inertia `M̃⁻¹` everywhere and project `v⁻` onto
/// `null(J_eq)` (model.md §1, "Bilateral constraints").
///
/// ```
/// use impactset::{Contact, ImpactProblem};
/// use nalgebra::{dmatrix, dvector};
///
/// // A unit point mass in the plane falling onto the floor y ≥ 0.
/// let floor = Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.5);
/// let problem = ImpactProblem::new(dmatrix![1.0, 0.0; 0.0, 1.0], dvector![1.0, -2.0], vec![floor])?;
/// assert_eq!(problem.contact_velocities().as_slice(), &[-2.0]);
/// assert_eq!(problem.colliding(), vec![0]);
/// # Ok::<(), impactset::ProblemError>(())
/// ```
#[derive(Clone, Debug)]
pub struct ImpactProblem {
    mass: DMatrix<f64>,
    velocity: DVector<f64>,
    /// `v⁻` as given, before any projection onto `null(J_eq)`.
    given_velocity: DVector<f64>,
    /// `J_eq` (r×n, r = 0 without constraints).
    bilateral: DMatrix<f64>,
    /// `‖v⁻_given − v⁻‖_M / ‖v⁻_given‖_M` (0 when not projected).
    projection_change: f64,
    contacts: Vec<Contact>,
    dimension: Dimension,
    friction_directions: usize,
    operators: ContactOperators,
    velocity_scale: f64,
}

impl ImpactProblem {
    /// A problem with the default number of friction directions (2 planar,
    /// 8 spatial).
    pub fn new(mass: DMatrix<f64>, velocity: DVector<f64>, contacts: Vec<Contact>) -> Result<Self, ProblemError> {
        Self::with_friction_directions(mass, velocity, contacts, None)
    }

    /// A problem with `d` friction directions per contact (`None`: the
    /// default). Planar problems accept only `d = 2`; spatial ones an even
    /// `d ≥ 4`.
    pub fn with_friction_directions(
        mass: DMatrix<f64>,
        velocity: DVector<f64>,
        contacts: Vec<Contact>,
        d: Option<usize>,
    ) -> Result<Self, ProblemError> {
        let n = velocity.len();
        if n == 0 {
            return Err(ProblemError::Empty);
        }
        if mass.nrows() != n || mass.ncols() != n {
            return Err(ProblemError::MassShape { rows: mass.nrows(), cols: mass.ncols(), n });
        }
        if contacts.is_empty() {
            return Err(ProblemError::NoContacts);
        }
        check_finite("mass_matrix", &mass)?;
        check_finite("velocity", &velocity)?;
        let dimension = check_contacts(&contacts, n)?;
        check_symmetric(&mass)?;
        let d = check_directions(dimension, d)?;
        let size = contacts.len().saturating_mul(3 + d);
        if size > MAX_STEP_LCP_SIZE {
            return Err(ProblemError::TooLarge { m: contacts.len(), d, size });
        }
        Self::build(mass, velocity, contacts, dimension, d, DMatrix::zeros(0, n))
    }

    /// This problem with the bilateral (equality) constraints `rows v = 0`
    /// added to its own (`rows` is r×n, one constraint per row; dependent
    /// and zero rows are fine): every impulse then acts through the
    /// constrained inverse inertia `M̃⁻¹ = N (Nᵀ M N)⁻¹ Nᵀ`, `N` an
    /// orthonormal basis of `null(J_eq)`, so `J_eq v⁺ = J_eq v⁻ = 0` through
    /// the impact; a `v⁻` that violates them is replaced by its M-orthogonal
    /// projection onto `null(J_eq)`, reported by
    /// [`ProblemWarning::ProjectedVelocity`] (model.md §1, "Bilateral
    /// constraints"). Adding no rows returns the problem unchanged.
    ///
    /// Errors: a row of the wrong length or with a non-finite entry
    /// (`bilateral[k]`), constraints that leave no motion, or that leave a
    /// contact's normal row none ([`ProblemError::BilateralBlocksContact`]).
    ///
    /// ```
    /// use impactset::{Contact, ImpactProblem};
    /// use nalgebra::{DMatrix, dmatrix, dvector};
    ///
    /// // Two unit masses on a line joined by a rigid rod, the first hitting a wall.
    /// let wall = Contact::planar("A", dvector![1.0, 0.0], dvector![0.0, 0.0], 0.0);
    /// let problem = ImpactProblem::new(DMatrix::identity(2, 2), dvector![-1.0, -1.0], vec![wall])?
    ///     .with_bilateral(dmatrix![1.0, -1.0])?;
    /// assert_eq!(problem.bilateral().nrows(), 1);
    /// // The rod makes it one mass of 2 hitting the wall: both stop.
    /// assert!((problem.operators().delassus[(0, 0)] - 0.5).abs() < 1e-15);
    /// # Ok::<(), impactset::ProblemError>(())
    /// ```
    pub fn with_bilateral(self, rows: DMatrix<f64>) -> Result<Self, ProblemError> {
        if rows.nrows() == 0 {
            return Ok(self);
        }
        let n = self.n();
        let r0 = self.bilateral.nrows();
        if rows.ncols() != n {
            return Err(ProblemError::BilateralRowLength { row: r0, len: rows.ncols(), n });
        }
        let mut all = self.bilateral.clone().resize_vertically(r0 + rows.nrows(), 0.0);
        all.rows_mut(r0, rows.nrows()).copy_from(&rows);
        check_finite("bilateral", &all)?;
        let ImpactProblem { mass, given_velocity, contacts, dimension, friction_directions, .. } = self;
        Self::build(mass, given_velocity, contacts, dimension, friction_directions, all)
    }

    /// This problem with contact `i`'s coefficient of restitution set to
    /// `e[i]` (docs/model.md §4b; `e` has one entry per contact, each in
    /// `[0, 1]`).
    ///
    /// Errors: a coefficient outside `[0, 1]`
    /// ([`ProblemError::Restitution`], naming `contacts[i].restitution`).
    ///
    /// ```
    /// use impactset::ImpactProblem;
    /// use nalgebra::{DMatrix, dvector};
    ///
    /// let floor = impactset::Contact::planar("A", dvector![0.0, 1.0], dvector![1.0, 0.0], 0.0);
    /// let ball = ImpactProblem::new(DMatrix::identity(2, 2), dvector![0.0, -1.0], vec![floor])?;
    /// let bouncing = ball.with_restitution(&[0.5])?;
    /// assert_eq!(bouncing.contacts()[0].restitution, 0.5);
    /// # Ok::<(), impactset::ProblemError>(())
    /// ```
    pub fn with_restitution(self, e: &[f64]) -> Result<Self, ProblemError> {
        assert_eq!(e.len(), self.m(), "one coefficient of restitution per contact");
        for (i, &value) in e.iter().enumerate() {
            check_restitution(i, value)?;
        }
        let mut problem = self;
        for (c, &value) in problem.contacts.iter_mut().zip(e) {
            c.restitution = value;
        }
        Ok(problem)
    }

    /// Whether some contact has a coefficient of restitution above 0.
    pub fn has_restitution(&self) -> bool {
        self.contacts.iter().any(|c| c.restitution > 0.0)
    }

    /// The problem from checked parts: the constrained inertia and projected
    /// `v⁻` when there are bilateral rows, the operators, the range checks.
    fn build(
        mass: DMatrix<f64>,
        given_velocity: DVector<f64>,
        contacts: Vec<Contact>,
        dimension: Dimension,
        d: usize,
        bilateral: DMatrix<f64>,
    ) -> Result<Self, ProblemError> {
        let constrained = if bilateral.nrows() == 0 {
            None
        } else {
            mass.clone().cholesky().ok_or(ProblemError::NotPositiveDefinite)?;
            bilateral::ConstrainedInertia::new(&mass, &bilateral)?
        };
        let (velocity, projection_change) = match &constrained {
            Some(c) if bilateral::violates(&bilateral, &given_velocity) => {
                let projected = c.project(&mass, &given_velocity);
                let diff = &given_velocity - &projected;
                let change =
                    (diff.dot(&(&mass * &diff)) / given_velocity.dot(&(&mass * &given_velocity))).max(0.0).sqrt();
                (projected, change)
            }
            _ => (given_velocity.clone(), 0.0),
        };
        let operators = ContactOperators::new(&mass, &velocity, &contacts, dimension, d, constrained.as_ref())?;
        if constrained.is_some() {
            check_blocked_contacts(&mass, &operators)?;
        }
        let velocity_scale = velocity_scale(&mass, &velocity, &operators);
        let problem = ImpactProblem {
            mass,
            velocity,
            given_velocity,
            bilateral,
            projection_change,
            contacts,
            dimension,
            friction_directions: d,
            operators,
            velocity_scale,
        };
        problem.check_range()?;
        Ok(problem)
    }

    /// The derived quantities of model.md §1, "Range" (the entries were
    /// checked on the way in).
    fn check_range(&self) -> Result<(), ProblemError> {
        let ops = &self.operators;
        let out = |field: String, quantity: &str, value: f64| ProblemError::OutOfRange {
            field,
            quantity: quantity.to_string(),
            value,
            low: 1.0 / RANGE,
            high: RANGE,
        };
        let within = |x: f64| (1.0 / RANGE..=RANGE).contains(&x);
        let inverse = ops.mass_inv.amax();
        if inverse.is_nan() || inverse > RANGE {
            return Err(out("mass_matrix".into(), "max |M⁻¹|", inverse));
        }
        for i in 0..ops.m {
            let w = ops.delassus[(i, i)];
            if !within(w) {
                return Err(out(format!("contacts[{i}].normal"), "this contact's Jn M⁻¹ Jnᵀ", w));
            }
            for k in 0..ops.d {
                let r = ops.m + i * ops.d + k;
                let w = ops.delassus[(r, r)];
                if w.is_nan() || w > RANGE {
                    return Err(out(tangent_field(self.dimension, i), "this contact's JD M⁻¹ JDᵀ", w));
                }
            }
        }
        let s = self.velocity_scale;
        if !within(s) {
            return Err(out("velocity".into(), "the velocity scale s", s));
        }
        let energy = self.kinetic_energy(&self.velocity);
        if !energy.is_finite() {
            return Err(out("velocity".into(), "the kinetic energy ½ v⁻ᵀ M v⁻", energy));
        }
        let h = self.default_step_size();
        if !within(h) {
            return Err(out("velocity".into(), "the default step size h", h));
        }
        Ok(())
    }

    /// What is legal but probably unintended about this problem (see
    /// [`ProblemWarning`]): a `v⁻` projected onto the bilateral constraints,
    /// no colliding contact, restitution on wedged contacts, a tangent row
    /// that does not move the system on a contact with friction.
    pub fn warnings(&self) -> Vec<ProblemWarning> {
        let mut warnings = Vec::new();
        if self.projection_change > bilateral::PROJECTION_TOLERANCE {
            warnings.push(ProblemWarning::ProjectedVelocity { change: self.projection_change });
        }
        if self.colliding().is_empty() {
            warnings.push(ProblemWarning::NothingColliding);
        }
        let wedged = wedge::wedged_with_restitution(self);
        if !wedged.is_empty() {
            let names = wedged.iter().map(|&i| self.contacts[i].name.clone()).collect();
            warnings.push(ProblemWarning::WedgedRestitution { contacts: wedged, names });
        }
        let ops = &self.operators;
        let t = self.dimension.tangents();
        for (i, c) in self.contacts.iter().enumerate() {
            if c.friction == 0.0 {
                continue;
            }
            for (a, row) in c.tangents.iter().enumerate() {
                let field = if t == 1 { "tangent".to_string() } else { format!("tangents[{a}]") };
                let what = if row.amax() == 0.0 {
                    Some("is zero")
                } else {
                    let w = row.dot(&(&ops.mass_inv * row));
                    (w <= 1e-12 * ops.delassus[(i, i)]).then_some("barely moves the system (Jt M⁻¹ Jtᵀ ≈ 0)")
                };
                if let Some(what) = what {
                    warnings.push(ProblemWarning::DeadTangent { contact: i, field, what });
                }
            }
        }
        warnings
    }

    /// Number of generalized velocities `n`.
    pub fn n(&self) -> usize {
        self.velocity.len()
    }

    /// Number of contacts `m`.
    pub fn m(&self) -> usize {
        self.contacts.len()
    }

    /// The mass matrix `M`.
    pub fn mass(&self) -> &DMatrix<f64> {
        &self.mass
    }

    /// The pre-impact velocity `v⁻` (with bilateral constraints, projected
    /// onto their null space when the given one violated them).
    pub fn velocity(&self) -> &DVector<f64> {
        &self.velocity
    }

    /// The bilateral constraint rows `J_eq` (r×n; 0 rows when there are none).
    pub fn bilateral(&self) -> &DMatrix<f64> {
        &self.bilateral
    }

    /// The contacts.
    pub fn contacts(&self) -> &[Contact] {
        &self.contacts
    }

    /// Planar (one tangent per contact) or spatial (two).
    pub fn dimension(&self) -> Dimension {
        self.dimension
    }

    /// Friction directions per contact, `d`.
    pub fn friction_directions(&self) -> usize {
        self.friction_directions
    }

    /// The precomputed constants shared by every step of every sample.
    pub fn operators(&self) -> &ContactOperators {
        &self.operators
    }

    /// Kinetic energy `½ vᵀ M v`.
    pub fn kinetic_energy(&self, v: &DVector<f64>) -> f64 {
        0.5 * v.dot(&(&self.mass * v))
    }

    /// [`kinetic_energy`](Self::kinetic_energy), the same value, with
    /// `M v` written into `mv` (no allocation).
    pub(crate) fn kinetic_energy_into(&self, v: &DVector<f64>, mv: &mut DVector<f64>) -> f64 {
        self.mass.mul_to(v, mv);
        0.5 * v.dot(mv)
    }

    /// The energy norm `‖x‖_M = √(xᵀ M x)`.
    pub fn energy_norm(&self, x: &DVector<f64>) -> f64 {
        x.dot(&(&self.mass * x)).max(0.0).sqrt()
    }

    /// Normal contact velocities `Jn v⁻` before the impact.
    pub fn contact_velocities(&self) -> DVector<f64> {
        self.normal_velocities(&self.velocity)
    }

    /// Normal contact velocities `Jn v`.
    pub fn normal_velocities(&self, v: &DVector<f64>) -> DVector<f64> {
        &self.operators.jn * v
    }

    /// Tangential contact velocities `Jt v` (`m·t` entries, grouped by contact).
    pub fn tangent_velocities(&self, v: &DVector<f64>) -> DVector<f64> {
        &self.operators.jt * v
    }

    /// Indices of the colliding contacts, `(Jn v⁻)_i < 0`.
    pub fn colliding(&self) -> Vec<usize> {
        self.contact_velocities().iter().enumerate().filter(|(_, u)| **u < 0.0).map(|(i, _)| i).collect()
    }

    /// The velocity scale of the impact, `max(‖Jn v⁻‖∞, ‖v⁻‖_M / √(tr M/n))`,
    /// never zero: termination and agreement tolerances are relative to it.
    pub fn velocity_scale(&self) -> f64 {
        self.velocity_scale
    }

    /// The default impulse step `h` when none is given: half the largest
    /// single-contact plastic impulse `|(Jn v⁻)_i| / (Jn M⁻¹ Jnᵀ)_ii`, so that
    /// an impact takes a handful of steps.
    pub fn default_step_size(&self) -> f64 {
        let ops = &self.operators;
        let u = self.contact_velocities();
        let mut h: f64 = 0.0;
        for i in 0..self.m() {
            let w = ops.delassus[(i, i)];
            if w > 0.0 && u[i] < 0.0 {
                h = h.max(-u[i] / w / 2.0);
            }
        }
        if h > 0.0 { h } else { 1.0 }
    }
}

/// [`ImpactProblem::velocity_scale`], computed once at construction.
fn velocity_scale(mass: &DMatrix<f64>, velocity: &DVector<f64>, ops: &ContactOperators) -> f64 {
    let normal = (&ops.jn * velocity).amax();
    let mean_mass = mass.trace() / velocity.len() as f64;
    let energy = velocity.dot(&(mass * velocity)).max(0.0).sqrt() / mean_mass.sqrt();
    let s = normal.max(energy);
    if s > 0.0 { s } else { 1.0 }
}

#[cfg(test)]
mod tests;
