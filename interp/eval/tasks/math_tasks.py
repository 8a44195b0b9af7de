"""Mathematics: solving equations, integrals, matrices (the numbers worked out here exactly)."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

from interp.eval.tasks.files import close, numeric_grid
from interp.eval.tasks.spec import Attempt, Number, Reference, Task, no_files

# -- equations --------------------------------------------------------------------------------
QUADRATIC = Task(
    id="equations-quadratic", category="equations",
    sentence="Solve 2x^2 - 3x - 5 = 0.",
    make=no_files,
    answer=(Number(-1, tol=0.001, rel=0, name="a root"), Number(2.5, tol=0.001, rel=0, name="a root")),
    right=Reference("python", "import numpy as np\nprint('x =', sorted(np.roots([2, -3, -5])))"),
    wrong=Reference("python", "import numpy as np\nprint('x =', sorted(np.roots([2, 3, -5])))"),
)

SYSTEM = Task(
    id="equations-linear-system", category="equations",
    sentence="Solve this system of equations: 2x + y - z = -2.75, x - 3y + 2z = 15.5, "
             "3x + 2y + 4z = 12.5.",
    make=no_files,
    answer=(Number(1.5, tol=0.001, rel=0, name="x"), Number(-2.5, tol=0.001, rel=0, name="y"),
            Number(3.25, tol=0.001, rel=0, name="z")),
    right=Reference("python", "import numpy as np\nA = [[2, 1, -1], [1, -3, 2], [3, 2, 4]]\n"
                              "print('x, y, z =', np.linalg.solve(A, [-2.75, 15.5, 12.5]).round(4))"),
    wrong=Reference("python", "import numpy as np\nA = [[2, 1, -1], [1, -3, 2], [3, 2, 4]]\n"
                              "print('x, y, z =', np.linalg.solve(np.transpose(A), [-2.75, 15.5, 12.5]).round(4))"),
)

_CUBIC_ROOT = 2.0945514815423265  # the real root of x^3 - 2x - 5

CUBIC = Task(
    id="equations-cubic-root", category="equations",
    sentence="Find the real root of x^3 - 2x - 5 = 0 to 4 decimal places.",
    make=no_files,
    answer=(Number(_CUBIC_ROOT, tol=0.0001, rel=0, name="the root"),),
    right=Reference("python", "x = 2.0\nfor _ in range(20):\n    x -= (x**3 - 2*x - 5) / (3*x**2 - 2)\n"
                              "print(f'x = {x:.4f}')"),
    wrong=Reference("python", "x = 2.0\nx -= (x**3 - 2*x - 5) / (3*x**2 - 2)\nprint(f'x = {x:.4f}')"),
)

# -- integrals --------------------------------------------------------------------------------
EXP_INTEGRAL = Task(
    id="integrals-polynomial-exp", category="integrals",
    sentence="What is the integral of x^2 * e^(-x) from 0 to 3?",
    make=no_files,
    answer=(Number(2 - 17 * math.exp(-3), tol=0.005, rel=0, name="the integral"),),
    right=Reference("python", "import numpy as np\nx = np.linspace(0, 3, 200001)\ny = x**2 * np.exp(-x)\n"
                              "print(f'{np.sum((y[1:] + y[:-1]) / 2 * np.diff(x)):.5f}')"),
    wrong=Reference("python", "import numpy as np\nx = np.linspace(0, 2, 200001)\ny = x**2 * np.exp(-x)\n"
                              "print(f'{np.sum((y[1:] + y[:-1]) / 2 * np.diff(x)):.5f}')"),
)

AREA = Task(
    id="integrals-area-between-curves", category="integrals",
    sentence="What is the area enclosed between y = x^2 and y = 2x + 3?",
    make=no_files,
    answer=(Number(32 / 3, tol=0.005, rel=0, name="the area"),),
    right=Reference("python", "f = lambda x: x**2 + 3*x - x**3 / 3\nprint(f'area = {f(3) - f(-1):.4f}')"),
    wrong=Reference("python", "f = lambda x: x**2 + 3*x - x**3 / 3\nprint(f'area = {f(3) - f(0):.4f}')"),
)

# -- matrices ---------------------------------------------------------------------------------
_MATRIX = ((2, -1, 0, 3), (1, 4, 2, -2), (0, 3, 5, 1), (4, 0, -1, 2))


def _inverse(rows) -> list[list[Fraction]]:
    """Gauss-Jordan on fractions: the exact inverse."""
    n = len(rows)
    grid = [[Fraction(v) for v in row] + [Fraction(i == j) for j in range(n)]
            for i, row in enumerate(rows)]
    for col in range(n):
        pivot = next(r for r in range(col, n) if grid[r][col] != 0)
        grid[col], grid[pivot] = grid[pivot], grid[col]
        grid[col] = [v / grid[col][col] for v in grid[col]]
        for r in range(n):
            if r != col and grid[r][col] != 0:
                grid[r] = [a - grid[r][col] * b for a, b in zip(grid[r], grid[col])]
    return [row[n:] for row in grid]


def _determinant(rows) -> Fraction:
    grid, det = [[Fraction(v) for v in row] for row in rows], Fraction(1)
    for col in range(len(grid)):
        pivot = next(r for r in range(col, len(grid)) if grid[r][col] != 0)
        if pivot != col:
            grid[col], grid[pivot], det = grid[pivot], grid[col], -det
        det *= grid[col][col]
        for r in range(col + 1, len(grid)):
            factor = grid[r][col] / grid[col][col]
            grid[r] = [a - factor * b for a, b in zip(grid[r], grid[col])]
    return det


def _check_inverse(attempt: Attempt):
    got = numeric_grid(attempt.folder / "inverse.csv")
    want = _inverse(_MATRIX)
    if len(got) != 4 or any(len(row) != 4 for row in got):
        yield f"inverse.csv holds a {len(got)}x{len(got[0]) if got else 0} grid of numbers, not 4x4"
        return
    if any(not close(g, float(w), 0.001, 0.001) for grow, wrow in zip(got, want)
           for g, w in zip(grow, wrow)):
        yield "inverse.csv is not the inverse of the matrix"


INVERSE = Task(
    id="matrices-determinant-inverse", category="matrices",
    sentence="matrix.csv holds a 4x4 matrix. What is its determinant? Save its inverse to "
             "inverse.csv.",
    make=lambda folder: _write_matrix(folder / "matrix.csv", _MATRIX),
    answer=(Number(float(_determinant(_MATRIX)), tol=0.01, rel=0, name="the determinant"),),
    files=_check_inverse,
    right=Reference("python", "import numpy as np\nm = np.loadtxt('matrix.csv', delimiter=',')\n"
                              "np.savetxt('inverse.csv', np.linalg.inv(m), delimiter=',')\n"
                              "print('det =', round(np.linalg.det(m), 6))"),
    wrong=Reference("python", "import numpy as np\nm = np.loadtxt('matrix.csv', delimiter=',')\n"
                              "np.savetxt('inverse.csv', m.T, delimiter=',')\n"
                              "print('det =', round(np.linalg.det(m), 6))"),
)

EIGEN = Task(
    id="matrices-eigenvalues", category="matrices",
    sentence="What are the eigenvalues of the matrix [[6, -2], [-2, 9]]?",
    make=no_files,
    answer=(Number(10, tol=0.001, rel=0, name="an eigenvalue"),
            Number(5, tol=0.001, rel=0, name="an eigenvalue")),
    right=Reference("python", "import numpy as np\nprint(np.linalg.eigvalsh([[6, -2], [-2, 9]]))"),
    wrong=Reference("python", "import numpy as np\nprint(np.diag([[6, -2], [-2, 9]]))"),
)

_A = ((3, -1, 2), (0, 4, 1), (5, 2, -3))
_B = ((1, 2, 0), (-2, 1, 4), (3, 0, 2))


def _product(a, b) -> list[list[int]]:
    return [[sum(a[i][k] * b[k][j] for k in range(3)) for j in range(3)] for i in range(3)]


def _check_product(attempt: Attempt):
    got = numeric_grid(attempt.folder / "product.csv")
    want = _product(_A, _B)
    if [[round(v, 6) for v in row] for row in got] != want:
        yield f"product.csv holds {got}, not A times B"


PRODUCT = Task(
    id="matrices-product", category="matrices",
    sentence="Multiply the matrix in a.csv by the matrix in b.csv (A times B), save the product "
             "to product.csv, and tell me the sum of all its entries.",
    make=lambda folder: (_write_matrix(folder / "a.csv", _A), _write_matrix(folder / "b.csv", _B)),
    files=_check_product,
    answer=(Number(sum(map(sum, _product(_A, _B))), tol=0.001, rel=0, name="the sum"),),
    right=Reference("python", "import numpy as np\na = np.loadtxt('a.csv', delimiter=',')\n"
                              "b = np.loadtxt('b.csv', delimiter=',')\np = a @ b\n"
                              "np.savetxt('product.csv', p, delimiter=',', fmt='%g')\nprint('sum', p.sum())"),
    wrong=Reference("python", "import numpy as np\na = np.loadtxt('a.csv', delimiter=',')\n"
                              "b = np.loadtxt('b.csv', delimiter=',')\np = b @ a\n"
                              "np.savetxt('product.csv', p, delimiter=',', fmt='%g')\nprint('sum', p.sum())"),
)


def _write_matrix(path: Path, rows) -> None:
    path.write_text("".join(",".join(map(str, row)) + "\n" for row in rows), encoding="utf-8")


TASKS = (QUADRATIC, SYSTEM, CUBIC, EXP_INTEGRAL, AREA, INVERSE, EIGEN, PRODUCT)
